import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { webhookKeys } from './keys';

type Create = BodyOf<'/v1/admin/webhook-endpoints', 'post'>;
type Update = BodyOf<'/v1/admin/webhook-endpoints/{id}', 'patch'>;
type Endpoint = Pick<components['schemas']['WebhookEndpoint'], 'id' | 'url'>;

async function createEndpoint(body: Create) {
  return unwrap(await api.POST('/v1/admin/webhook-endpoints', { body }));
}

/** Adds an endpoint; its signing secret is in this answer only. */
export function useWebhookEndpointCreateMutation(options: MutationOptions<Awaited<ReturnType<typeof createEndpoint>>, Create> = {}) {
  return useInvalidatingMutation({ mutationFn: createEndpoint, invalidates: () => [webhookKeys.lists], ...options });
}

/** Edits an endpoint, or only switches it (`{id, body: {enabled}}`). */
export function useWebhookEndpointUpdateMutation(options: MutationOptions<unknown, { id: string; body: Update }> & { refreshOnError?: boolean } = {}) {
  return useInvalidatingMutation({
    mutationFn: async ({ id, body }: { id: string; body: Update }) =>
      unwrap(await api.PATCH('/v1/admin/webhook-endpoints/{id}', { params: { path: { id } }, body })),
    invalidates: () => [webhookKeys.lists],
    ...options,
  });
}

/** Queues a webhook.test event to the endpoint; its deliveries list refreshes to show it. */
export function useWebhookEndpointTestMutation(options: MutationOptions<{ eventId: string }, Endpoint> = {}) {
  return useInvalidatingMutation({
    mutationFn: async ({ id }: Endpoint) => unwrap(await api.POST('/v1/admin/webhook-endpoints/{id}/test', { params: { path: { id } } })),
    invalidates: ({ id }) => [webhookKeys.endpoint(id)],
    ...options,
  });
}

/** A new signing secret, in this answer only; later deliveries, retries included, use it at once. */
export function useWebhookSecretRotateMutation() {
  return useMutation({
    mutationFn: async (id: string) => unwrap(await api.POST('/v1/admin/webhook-endpoints/{id}/rotate-secret', { params: { path: { id } } })),
  });
}

/**
 * Deletes the endpoint with its delivery history. Its deliveries' refreshes stop before the delete
 * and their answers are dropped after it, so nothing asks for a deleted endpoint (404).
 */
export function useWebhookEndpointDeleteMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    async mutationFn(id: string) {
      await queryClient.cancelQueries({ queryKey: webhookKeys.endpoint(id) });
      return unwrap(await api.DELETE('/v1/admin/webhook-endpoints/{id}', { params: { path: { id } } }));
    },
    async onSuccess(_data, id) {
      queryClient.removeQueries({ queryKey: webhookKeys.endpoint(id) });
      await queryClient.invalidateQueries({ queryKey: webhookKeys.lists });
    },
  });
}
