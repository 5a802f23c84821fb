import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { segmentKeys } from './keys';

type Conditions = components['schemas']['SegmentCondition'];

/** the key of the query that is never asked (an incomplete tree) */
const nobody: Conditions = { any: [] };

/**
 * How many contacts a condition tree matches now, and up to 20 of them; nothing is asked while the
 * tree is incomplete (`undefined`). The last count stays on screen while the next is computed, and
 * a refused tree (400 naming its path) is shown at once, not retried.
 */
export function useSegmentPreviewQuery(conditions: Conditions | undefined) {
  return useQuery({
    queryKey: segmentKeys.preview(conditions ?? nobody),
    queryFn: async ({ signal }) => unwrap(await api.POST('/v1/admin/segments/preview', { body: { conditions: conditions ?? nobody }, signal })),
    enabled: conditions !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
  });
}
