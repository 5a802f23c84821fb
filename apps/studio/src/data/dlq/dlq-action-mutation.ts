import { api, unwrap } from '../../api/client';
import { metricKeys } from '../metrics/keys';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import { dlqKeys } from './keys';

interface DlqAction {
  action: 'retry' | 'discard';
  ids: string[];
}

/** Retries (through the entry's pipeline) or discards entries one by one; answers how many were done. */
async function act({ action, ids }: DlqAction): Promise<number> {
  for (const id of ids) {
    if (action === 'retry') unwrap(await api.POST('/v1/admin/dlq/{id}/retry', { params: { path: { id } } }));
    else unwrap(await api.DELETE('/v1/admin/dlq/{id}', { params: { path: { id } } }));
  }
  return ids.length;
}

/** The list and the overview's pending figure reload even when a batch stopped half-way. */
export function useDlqActionMutation(options: MutationOptions<number, DlqAction> = {}) {
  return useInvalidatingMutation({ mutationFn: act, invalidates: () => [dlqKeys.all, metricKeys.all], refreshOnError: true, ...options });
}
