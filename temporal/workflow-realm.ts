import type { BundleOptions } from '@temporalio/worker';

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/**
 * Workflow code runs without stack traces: `Error.stackTraceLimit = 0` in the sandbox's realm,
 * set by the first line of the workflow bundle, before the SDK freezes the realm's built-ins.
 *
 * Why: the SDK installs a promise hook that builds an `Error`, and formats its stack through the
 * bundle's source map, for every promise workflow code creates, to answer the `__stack_trace`
 * query (temporalio/sdk-typescript#1587; there is no option to turn it off). With no frames to
 * capture most of that work goes: on the email-latency bench the workflow threads' CPU per
 * event went from ~8 to ~6 ms (bench/HISTORY.md, "Workflow thread and Temporal server per run").
 *
 * What is given up: the stack of an error thrown inside a workflow (the message, type and cause
 * chain stay, and a journey's failure is recorded by its message), and the Temporal UI's stack
 * trace of a waiting run; the admin plane shows where a run waits from its own progress query.
 * Activities keep their stack traces: they run outside the sandbox.
 */
export function withoutWorkflowStackTraces(config: WebpackConfig): WebpackConfig {
  const banner: NonNullable<WebpackConfig['plugins']>[number] = {
    apply(compiler) {
      new compiler.webpack.BannerPlugin({ banner: 'Error.stackTraceLimit = 0;', raw: true, entryOnly: true }).apply(compiler);
    },
  };
  return { ...config, plugins: [...(config.plugins ?? []), banner] };
}
