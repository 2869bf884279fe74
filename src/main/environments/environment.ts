import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { isInsecureProduction, type Environment, type EnvironmentInput, type EnvironmentPatch } from '../../shared/environment.js';
import type { Assert, SchemaMatches } from '../schemaMatches.js';

export const ENVIRONMENT_NAME_MAX = 80;

export function normaliseBaseUrl(value: string): string {
  const url = new URL(value);
  // Keep a path prefix (a host may mount the app under a sub-path), drop a trailing slash,
  // a query and a fragment.
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

export const baseUrlSchema = z
  .string()
  .trim()
  .min(1, 'baseUrl is required')
  .max(2048, 'baseUrl is too long')
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && u.username === '' && u.password === '';
    } catch {
      return false;
    }
  }, 'baseUrl must be an http:// or https:// URL without credentials')
  .transform(normaliseBaseUrl);

export const CA_CERTIFICATE_PATH_MAX = 4096;

const SELF_SIGNED_IN_PRODUCTION = 'not allowed for a production environment (add its CA certificate file instead)';

/** Why an environment's TLS settings cannot be used, or undefined when they can. */
export function selfSignedRefusal(environment: Pick<Environment, 'isProduction' | 'allowSelfSigned'>): string | undefined {
  return environment.isProduction && environment.allowSelfSigned === true ? `allowSelfSigned: ${SELF_SIGNED_IN_PRODUCTION}` : undefined;
}

/** Why a production environment at http:// cannot be used, or undefined when it can (https, or confirmed by its typed name). */
export function insecureProductionRefusal(environment: Pick<Environment, 'isProduction' | 'baseUrl' | 'name' | 'insecureHttpConfirmedName'>): string | undefined {
  if (!isInsecureProduction(environment) || environment.insecureHttpConfirmedName === environment.name) return undefined;
  return `baseUrl: a production environment at http:// sends its password and token unencrypted; use https://, or type the environment's name "${environment.name}" to allow it (insecureHttpConfirmedName)`;
}

const environmentFieldsSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'name is required')
    .max(ENVIRONMENT_NAME_MAX, `name is longer than ${ENVIRONMENT_NAME_MAX} characters`)
    .refine((v) => !/[\u0000-\u001f/]/.test(v), 'name must not contain "/" or control characters'),
  baseUrl: baseUrlSchema,
  colour: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'colour must be #rrggbb')
    .transform((v) => v.toLowerCase()),
  isProduction: z.boolean(),
  group: z.string().trim().max(60, 'group is longer than 60 characters').optional(),
  favourite: z.boolean().optional(),
  // An empty path clears the setting (an edit cannot send "undefined" to remove a field).
  caCertificatePath: z
    .string()
    .trim()
    .max(CA_CERTIFICATE_PATH_MAX, 'caCertificatePath is too long')
    .refine((v) => v === '' || isAbsolute(v), 'caCertificatePath must be an absolute path')
    .optional(),
  allowSelfSigned: z.boolean().optional(),
  insecureHttpConfirmedName: z.string().trim().max(ENVIRONMENT_NAME_MAX, `insecureHttpConfirmedName is longer than ${ENVIRONMENT_NAME_MAX} characters`).optional(),
});

const refuseSelfSignedProduction = (value: Pick<Environment, 'isProduction' | 'allowSelfSigned'>, ctx: z.RefinementCtx) => {
  if (selfSignedRefusal(value)) ctx.addIssue({ code: 'custom', path: ['allowSelfSigned'], message: SELF_SIGNED_IN_PRODUCTION });
};

/** A new environment (add, import): "allow self-signed" is refused for production. */
export const environmentInputSchema = environmentFieldsSchema.superRefine(refuseSelfSignedProduction);

/** An edit; the store checks the merged result against the production rule. */
export const environmentPatchSchema = environmentFieldsSchema.partial();

/**
 * A stored environment. A hand-edited file that allows self-signed certificates for a
 * production environment still loads: its connection is refused with the reason instead.
 */
export const environmentSchema = environmentFieldsSchema.extend({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'id must be 1-64 letters, digits, "_" or "-"'),
});

/** The schemas parse to exactly the shared types the renderer reads (checked by the type-check). */
export type EnvironmentSchemasMatch = [
  Assert<SchemaMatches<typeof environmentInputSchema, EnvironmentInput>>,
  Assert<SchemaMatches<typeof environmentPatchSchema, EnvironmentPatch>>,
  Assert<SchemaMatches<typeof environmentSchema, Environment>>,
];

/** Formats a zod error as one line naming the offending fields. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : 'value'}: ${i.message}`)
    .join('; ');
}
