import { BadRequestError } from './problem.js';

/** Longest accepted search text, and most words or phrases in one search. */
export const MAX_REQUEST_SEARCH_LENGTH = 500;
export const MAX_REQUEST_SEARCH_TERMS = 16;

/**
 * Splits an argument search into its terms: bare words (split on white space) and "quoted
 * phrases". Terms without a letter or digit are left out (punctuation is not indexed). An
 * unbalanced quote, an over-long text, too many terms or nothing to search for is a 400 naming
 * `parameter`.
 */
export function parseRequestSearch(parameter: string, text: string): string[] {
  const fail = (message: string): never => {
    throw BadRequestError.of(parameter, message);
  };
  if (text.length > MAX_REQUEST_SEARCH_LENGTH) fail(`The search is longer than ${MAX_REQUEST_SEARCH_LENGTH} characters.`);
  const quotes = (text.match(/"/g) ?? []).length;
  if (quotes % 2 === 1) fail('The search has an unbalanced double quote: close the quoted phrase.');
  const terms: string[] = [];
  const re = /"([^"]*)"|([^\s"]+)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const term = (m[1] ?? m[2] ?? '').trim().replace(/\s+/g, ' ');
    if (term === '' || !/[\p{L}\p{N}]/u.test(term)) continue;
    terms.push(term);
  }
  if (terms.length === 0) fail('The search has no letter or digit to search for.');
  if (terms.length > MAX_REQUEST_SEARCH_TERMS) {
    fail(`The search has ${terms.length} words or phrases; at most ${MAX_REQUEST_SEARCH_TERMS} are accepted.`);
  }
  return terms;
}
