import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { BodyOf } from '../types';

type SendTest = BodyOf<'/v1/admin/templates/{key}/send-test', 'post'>;

/** Sends the template with sample data to one address (through the send gate, like any email). */
export function useTemplateSendTestMutation(key: string) {
  return useMutation({
    mutationFn: async (body: SendTest) => unwrap(await api.POST('/v1/admin/templates/{key}/send-test', { params: { path: { key } }, body })),
  });
}
