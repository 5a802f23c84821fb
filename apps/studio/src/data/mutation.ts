import { useMutation, useQueryClient, type QueryKey, type UseMutationOptions } from '@tanstack/react-query';

/** What a page adds to a data-layer mutation: its own callbacks, run after the hook's cache work. */
export type MutationOptions<TData, TVariables> = Pick<UseMutationOptions<TData, Error, TVariables>, 'onSuccess' | 'onSettled'>;

interface InvalidatingMutation<TData, TVariables> extends MutationOptions<TData, TVariables> {
  mutationFn: (variables: TVariables) => Promise<TData>;
  /** the queries this change makes stale (key factories' prefixes) */
  invalidates: (variables: TVariables) => readonly QueryKey[];
  /** refresh after a failure too: a batch that stopped half-way still changed what it did */
  refreshOnError?: boolean;
}

/**
 * The one shape of every studio mutation: call the API, then mark the queries it changed stale so
 * the screens showing them reload, then the page's own callbacks (clear a form, navigate).
 */
export function useInvalidatingMutation<TData, TVariables = void>({
  mutationFn,
  invalidates,
  refreshOnError = false,
  onSuccess,
  onSettled,
}: InvalidatingMutation<TData, TVariables>) {
  const queryClient = useQueryClient();
  const refresh = (variables: TVariables) => Promise.all(invalidates(variables).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  return useMutation<TData, Error, TVariables>({
    mutationFn,
    async onSuccess(...args) {
      if (!refreshOnError) await refresh(args[1]);
      await onSuccess?.(...args);
    },
    async onSettled(...args) {
      if (refreshOnError) await refresh(args[2]);
      await onSettled?.(...args);
    },
  });
}
