import { api, unwrap } from '../../api/client';
import { useDeletingMutation, useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { segmentKeys } from './keys';

type Create = BodyOf<'/v1/admin/segments', 'post'>;
type Update = BodyOf<'/v1/admin/segments/{id}', 'patch'>;

async function createSegment(body: Create) {
  return unwrap(await api.POST('/v1/admin/segments', { body }));
}

async function updateSegment({ id, body }: { id: string; body: Update }) {
  return unwrap(await api.PATCH('/v1/admin/segments/{id}', { params: { path: { id } }, body }));
}

type Saved = Awaited<ReturnType<typeof createSegment>>;

/** Saves a new segment (409 when another has the name). */
export function useSegmentCreateMutation(options: MutationOptions<Saved, Create> = {}) {
  return useInvalidatingMutation({ mutationFn: createSegment, invalidates: () => [segmentKeys.lists], ...options });
}

/** Saves a segment's name, description or conditions. */
export function useSegmentUpdateMutation(options: MutationOptions<Saved, { id: string; body: Update }> = {}) {
  return useInvalidatingMutation({ mutationFn: updateSegment, invalidates: ({ id }) => [segmentKeys.lists, segmentKeys.detail(id)], ...options });
}

/**
 * Deletes a segment (409 while a scheduled or sending broadcast uses it: the caller shows the
 * message); its detail is dropped, not refreshed, so nothing asks for a deleted segment (404).
 */
export function useSegmentDeleteMutation(options: MutationOptions<unknown, string> = {}) {
  return useDeletingMutation({
    mutationFn: async (id: string) => unwrap(await api.DELETE('/v1/admin/segments/{id}', { params: { path: { id } } })),
    removes: segmentKeys.detail,
    invalidates: segmentKeys.lists,
    ...options,
  });
}
