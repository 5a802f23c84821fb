import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { alertKeys } from './keys';

type Create = BodyOf<'/v1/admin/alerts/rules', 'post'>;
type Update = BodyOf<'/v1/admin/alerts/rules/{id}', 'patch'>;

async function createRule(body: Create) {
  return unwrap(await api.POST('/v1/admin/alerts/rules', { body }));
}

export function useAlertRuleCreateMutation(options: MutationOptions<Awaited<ReturnType<typeof createRule>>, Create> = {}) {
  return useInvalidatingMutation({ mutationFn: createRule, invalidates: () => [alertKeys.rules], ...options });
}

/** Edits a rule, or only switches it (`{id, body: {enabled}}`); the list reloads even after a refusal. */
export function useAlertRuleUpdateMutation(options: MutationOptions<unknown, { id: string; body: Update }> = {}) {
  return useInvalidatingMutation({
    mutationFn: async ({ id, body }: { id: string; body: Update }) =>
      unwrap(await api.PATCH('/v1/admin/alerts/rules/{id}', { params: { path: { id } }, body })),
    invalidates: () => [alertKeys.rules],
    refreshOnError: true,
    ...options,
  });
}

/** Deletes a rule and its history. */
export function useAlertRuleDeleteMutation() {
  return useInvalidatingMutation({
    mutationFn: async (id: string) => unwrap(await api.DELETE('/v1/admin/alerts/rules/{id}', { params: { path: { id } } })),
    invalidates: () => [alertKeys.all],
  });
}
