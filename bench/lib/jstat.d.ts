// jstat ships no types; this declares what the benches use (bench/lib/interval.ts).
declare module 'jstat' {
  const jStat: {
    mean(values: readonly number[]): number;
    /** `sample` true: divides by n − 1 (the sample variance). */
    variance(values: readonly number[], sample?: boolean): number;
    studentt: {
      /** The quantile of Student's t distribution: the t whose cumulative probability is `p`, for `dof` degrees of freedom. */
      inv(p: number, dof: number): number;
    };
  };
  export default jStat;
}
