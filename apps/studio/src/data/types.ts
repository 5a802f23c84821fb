import type { paths } from '../api/schema';

/** The query-string parameters of a GET path, from the generated client (the key factories' filters). */
export type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

/** The JSON body of a path's method, from the generated client. */
export type BodyOf<P extends keyof paths, M extends 'post' | 'put' | 'patch'> =
  paths[P] extends Record<M, { requestBody?: { content: { 'application/json': infer B } } }> ? B : never;
