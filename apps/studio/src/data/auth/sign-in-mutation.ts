import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { authKeys } from './keys';

type SignIn = BodyOf<'/api/auth/sign-in/email', 'post'>;

async function signIn(body: SignIn) {
  return unwrap(await api.POST('/api/auth/sign-in/email', { body }));
}

/** Signs in; the session gate then reads the organization role and abilities. */
export function useSignInMutation(options: MutationOptions<Awaited<ReturnType<typeof signIn>>, SignIn> = {}) {
  return useInvalidatingMutation({ mutationFn: signIn, invalidates: () => [authKeys.session], ...options });
}
