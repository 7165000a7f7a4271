'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useForm, type UseFormProps } from 'react-hook-form';
import type { z } from 'zod';

/**
 * react-hook-form validated by a zod schema: pass the same schema the domain
 * or REST layer validates with (server/http/schemas, server/domain), so the
 * browser shows the server's rules inline before sending. Errors land in
 * `formState.errors.<field>.message`, shown by <Field error=...>.
 */
export function useZodForm<S extends z.ZodType<Record<string, unknown>, Record<string, unknown>>>(
  schema: S,
  props?: Omit<UseFormProps<z.input<S>, unknown, z.output<S>>, 'resolver'>,
) {
  return useForm<z.input<S>, unknown, z.output<S>>({ ...props, resolver: zodResolver(schema) });
}
