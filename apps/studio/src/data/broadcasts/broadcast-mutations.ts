import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useDeletingMutation, useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { broadcastKeys } from './keys';

export type BroadcastCreate = BodyOf<'/v1/admin/broadcasts', 'post'>;
export type BroadcastPatch = BodyOf<'/v1/admin/broadcasts/{id}', 'patch'>;

async function saveBroadcast({ id, create, patch }: { id: string | undefined; create: BroadcastCreate; patch: BroadcastPatch }) {
  if (id === undefined) return unwrap(await api.POST('/v1/admin/broadcasts', { body: create }));
  return unwrap(await api.PATCH('/v1/admin/broadcasts/{id}', { params: { path: { id } }, body: patch }));
}
type Saved = Awaited<ReturnType<typeof saveBroadcast>>;

/**
 * Saves a draft: creates it the first time (`id` undefined), else changes it (409 once sent). The
 * answer becomes the broadcast's cached detail, so the page that opens it next has it at once.
 */
export function useBroadcastSaveMutation(options: MutationOptions<Saved, Parameters<typeof saveBroadcast>[0]> = {}) {
  const queryClient = useQueryClient();
  return useInvalidatingMutation({
    mutationFn: saveBroadcast,
    invalidates: () => [broadcastKeys.lists],
    ...options,
    async onSuccess(...args) {
      queryClient.setQueryData(broadcastKeys.detail(args[0].broadcast.id), args[0]);
      await options.onSuccess?.(...args);
    },
  });
}

type Transition = 'send' | 'pause' | 'resume' | 'cancel';

async function transition({ id, action }: { id: string; action: Transition }) {
  const params = { params: { path: { id } } };
  switch (action) {
    case 'send':
      return unwrap(await api.POST('/v1/admin/broadcasts/{id}/send', params));
    case 'pause':
      return unwrap(await api.POST('/v1/admin/broadcasts/{id}/pause', params));
    case 'resume':
      return unwrap(await api.POST('/v1/admin/broadcasts/{id}/resume', params));
    case 'cancel':
      return unwrap(await api.POST('/v1/admin/broadcasts/{id}/cancel', params));
  }
}

/** Send (a draft), pause, resume or cancel; the API answers 409 on a transition the status does not have. */
export function useBroadcastTransitionMutation(options: MutationOptions<Awaited<ReturnType<typeof transition>>, { id: string; action: Transition }> = {}) {
  return useInvalidatingMutation({
    mutationFn: transition,
    invalidates: ({ id }) => [broadcastKeys.lists, broadcastKeys.broadcast(id)],
    refreshOnError: true,
    ...options,
  });
}

/** A copy marked [Test] to up to 5 addresses, not counted in the stats. */
export function useBroadcastTestMutation() {
  return useMutation({
    mutationFn: async ({ id, emails }: { id: string; emails: string[] }) =>
      unwrap(await api.POST('/v1/admin/broadcasts/{id}/test', { params: { path: { id } }, body: { emails } })),
  });
}

/** Deletes a draft (409 once sent); its queries are dropped, not refreshed, so nothing asks for it again (404). */
export function useBroadcastDeleteMutation(options: MutationOptions<unknown, string> = {}) {
  return useDeletingMutation({
    mutationFn: async (id: string) => unwrap(await api.DELETE('/v1/admin/broadcasts/{id}', { params: { path: { id } } })),
    removes: broadcastKeys.broadcast,
    invalidates: broadcastKeys.lists,
    ...options,
  });
}
