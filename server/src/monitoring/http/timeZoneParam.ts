import { isKnownZone } from '../../storage/common/zonedCalendar.js';
import { BadRequestError } from './problem.js';
import type { QueryParams } from './queryParams.js';

/**
 * The additive `timeZone` query parameter of the overview and statistics: an IANA zone name
 * ("America/Los_Angeles", "UTC"). Absent → undefined (the spec's UTC ranges); unknown → 400.
 */
export function timeZoneParam(params: QueryParams): string | undefined {
  const v = params.string('timeZone')?.trim();
  if (v === undefined || v === '') return undefined;
  if (!isKnownZone(v)) {
    throw BadRequestError.of('timeZone', `The value '${v}' is not a known IANA time zone (for example Europe/Rome or UTC).`);
  }
  return v;
}
