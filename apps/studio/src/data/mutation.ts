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

interface DeletingMutation<TData> extends MutationOptions<TData, string> {
  mutationFn: (id: string) => Promise<TData>;
  /** the deleted resource's own queries (its detail), dropped rather than refreshed: asking again would 404 */
  removes: (id: string) => QueryKey;
  /** the lists that showed it */
  invalidates: QueryKey;
}

/** A delete by id: the resource's queries leave the cache, the lists refresh, then the page's callbacks. */
export function useDeletingMutation<TData>({ mutationFn, removes, invalidates, onSuccess }: DeletingMutation<TData>) {
  const queryClient = useQueryClient();
  return useMutation<TData, Error, string>({
    mutationFn,
    async onSuccess(...args) {
      queryClient.removeQueries({ queryKey: removes(args[1]) });
      await queryClient.invalidateQueries({ queryKey: invalidates });
      await onSuccess?.(...args);
    },
  });
}
