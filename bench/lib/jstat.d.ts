// jstat ships no types; this declares the one function the benches use (bench/lib/interval.ts).
declare module 'jstat' {
  const jStat: {
    studentt: {
      /** The quantile of Student's t distribution: the t whose cumulative probability is `p`, for `dof` degrees of freedom. */
      inv(p: number, dof: number): number;
    };
  };
  export default jStat;
}
