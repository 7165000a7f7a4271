/**
 * Error answers that narrow on their code (clients/typescript/README.md "Errors").
 *
 * The OpenAPI document lists, per operation and status, the error codes it can answer, each
 * code with its own body schema (`Error_<code>`: `alternatives`, `conflicts` and
 * `next_available` only where that code has them), so the generated types already hold a
 * per-operation union of error bodies. TypeScript does not narrow a union on a nested property
 * (`error.error.code`), so the client copies that code to the top of the body as `code`, and
 * these types say so: `switch (error.code)` narrows `error` to that code's body.
 */
import type { paths } from './schema.js';

/** An error body with its `error.code` at the top as `code` (distributes over a union of bodies). */
export type Coded<B> = B extends { error: { code: infer C } } ? B & { code: C } : B;

type CodedContent<C> = { [M in keyof C]: Coded<C[M]> };
type CodedResponse<R> = R extends { content: infer C } ? { [K in keyof R]: K extends 'content' ? CodedContent<C> : R[K] } : R;
type CodedOperation<O> = { [K in keyof O]: K extends 'responses' ? { [S in keyof O[K]]: CodedResponse<O[K][S]> } : O[K] };

/** The generated `paths` with every error body `Coded` (what the client's answers hold). */
export type CodedPaths = { [P in keyof paths]: { [M in keyof paths[P]]: CodedOperation<paths[P][M]> } };

type Statuses<O> = O extends { responses: infer R } ? R : never;
/** Statuses that are not errors (an operation's other statuses, 4xx, 5xx and `default`, answer error bodies). */
type OkStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 207 | 208 | 226 | 300 | 301 | 302 | 303 | 304 | 307 | 308;
type BodyOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type ErrorStatuses<P extends keyof CodedPaths, M extends keyof CodedPaths[P]> = Exclude<keyof Statuses<CodedPaths[P][M]>, OkStatus>;

/**
 * The error union one operation can answer, discriminated on `code`:
 * `OperationError<'/v1/bookings', 'post'>`.
 */
export type OperationError<P extends keyof CodedPaths, M extends keyof CodedPaths[P]> = {
  [S in ErrorStatuses<P, M>]: BodyOf<Statuses<CodedPaths[P][M]>[S]>;
}[ErrorStatuses<P, M>];
