'use client';

import { toNestErrors } from '@hookform/resolvers';
import { useForm, type FieldError, type FieldValues, type Resolver, type UseFormProps } from 'react-hook-form';
import type { z } from 'zod';
import { plainMessage, valueAt } from './plain-errors';

/**
 * A react-hook-form resolver for a zod schema whose messages are plain words
 * (components/ui/plain-errors.ts): the first issue of each field, worded for
 * a person, the parsed values when valid.
 */
/** A form's own words for an issue (the requester pages' language); undefined: the plain English words. */
export type IssueWords = (issue: z.core.$ZodIssue, input: unknown) => string | undefined;

export function plainZodResolver<S extends z.ZodType<FieldValues, FieldValues>>(schema: S, words?: IssueWords): Resolver<z.input<S>, unknown, z.output<S>> {
  return async (values, _context, options) => {
    const result = await schema.safeParseAsync(values);
    if (result.success) return { values: result.data, errors: {} };
    const flat: Record<string, FieldError> = {};
    for (const issue of result.error.issues) {
      const path = issue.path.map(String).join('.');
      const input = valueAt(values, issue.path);
      if (!flat[path]) flat[path] = { type: issue.code, message: words?.(issue, input) ?? plainMessage(issue, input) };
    }
    return { values: {}, errors: toNestErrors(flat, options) };
  };
}

/**
 * react-hook-form validated by a zod schema: pass the same schema the domain
 * or REST layer validates with (server/schemas, server/domain), so the
 * browser shows the server's rules inline before sending, in plain words
 * (one error map for every form). Errors land in
 * `formState.errors.<field>.message`, shown by <Field error=...>.
 */
export function useZodForm<S extends z.ZodType<Record<string, unknown>, Record<string, unknown>>>(
  schema: S,
  props?: Omit<UseFormProps<z.input<S>, unknown, z.output<S>>, 'resolver'>,
  words?: IssueWords,
) {
  return useForm<z.input<S>, unknown, z.output<S>>({ ...props, resolver: plainZodResolver(schema, words) });
}
