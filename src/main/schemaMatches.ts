import type { z } from 'zod';

/** True when A and B are the same type (not merely assignable one way). */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * `true` when what the schema parses to is exactly T, else a type naming both shapes. Used as
 * `Assert<SchemaMatches<typeof schema, SharedType>>`: a schema that drifts from the type the
 * renderer reads (a field added to one and not the other) fails `npm run typecheck`.
 */
export type SchemaMatches<S extends z.ZodType, T> = Same<z.output<S>, T> extends true ? true : { schemaDiffersFromType: { schema: z.output<S>; type: T } };

/** Compiles only for `true`. */
export type Assert<T extends true> = T;
