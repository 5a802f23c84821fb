import type { components } from '../../api/schema';
import type { QueryOf } from '../types';

/** Everything about segments sits under `all`: a save refreshes the lists, details and previews showing it. */
export const segmentKeys = {
  all: ['segments'] as const,
  lists: ['segments', 'list'] as const,
  list: (query: QueryOf<'/v1/admin/segments'>) => [...segmentKeys.lists, query] as const,
  detail: (id: string) => [...segmentKeys.all, id, 'detail'] as const,
  preview: (conditions: components['schemas']['SegmentCondition']) => [...segmentKeys.all, 'preview', conditions] as const,
};
