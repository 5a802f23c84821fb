import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowClient, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { journeyWorkflow } from '@waymark/temporal/workflows/journey';
import { journeyRunActivityNames } from '@waymark/temporal/journey-calls';
import { loadTemplateRegistry, type FakeRun, type JourneyRunActivities } from '@waymark/temporal/simulation/fake-world';
import { createTimeSkippingEnv, journeyWorkflowBundle } from '@waymark/temporal/test/time-skipping';

/** One Java time-skipping server and one worker per test file (process), shared by its runs. */
export interface JourneyTestServer {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  /**
   * A plain client: its result() leaves the clock alone, where the environment's time-skipping
   * client would unlock it and run every timer to the end.
   */
  observer: WorkflowClient;
  /** the fake runs by workflow id: the shared worker's activities dispatch to them */
  runs: Map<string, FakeRun>;
}

let current: Promise<{ server: JourneyTestServer; stop: () => Promise<void> }> | undefined;

function dispatchingActivities(runs: Map<string, FakeRun>): JourneyRunActivities {
  const runOf = (): JourneyRunActivities => {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
    const run = runs.get(workflowId);
    if (run === undefined) throw new Error(`no test run registered for workflow ${workflowId}`);
    return run.activities();
  };
  // each activity a run can call (journey-calls.ts), answered by the same one of the run's world
  return Object.fromEntries(
    journeyRunActivityNames.map((name) => [name, (input: never) => (runOf()[name as keyof JourneyRunActivities] as (input: never) => Promise<unknown>)(input)]),
  ) as unknown as JourneyRunActivities;
}

async function start(): Promise<{ server: JourneyTestServer; stop: () => Promise<void> }> {
  // the worker's info lines (state changes) would drown the test report; a runtime the caller
  // already installed keeps its own logger
  if (Runtime._instance === undefined) Runtime.install({ logger: new DefaultLogger('ERROR') });
  // the template registry's import overlaps the JVM's boot instead of adding to it
  const [env, bundle] = await Promise.all([createTimeSkippingEnv(), journeyWorkflowBundle(), loadTemplateRegistry()]);
  const runs = new Map<string, FakeRun>();
  const taskQueue = `journey-tests-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: dispatchingActivities(runs) });
  const running = worker.run();
  const observer = new WorkflowClient({ connection: env.connection, namespace: env.namespace ?? 'default' });
  await warmUp(env, observer, taskQueue);
  return {
    server: { env, taskQueue, runs, observer },
    async stop() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}

/**
 * The worker loads the workflow bundle into its sandbox on the first run; one throw-away run (an
 * unknown journey id, which fails at once without an activity) does that during start-up.
 */
async function warmUp(env: TestWorkflowEnvironment, observer: WorkflowClient, taskQueue: string): Promise<void> {
  const workflowId = `journey-tests-warm-up-${randomUUID()}`;
  await env.client.workflow.start<typeof journeyWorkflow>('journeyWorkflow', {
    taskQueue,
    workflowId,
    args: [
      {
        journeyId: '(warm-up)',
        userId: 'warm-up',
        userEmail: '',
        properties: {},
        trigger: { event: 'warm-up', eventId: workflowId, occurredAt: new Date(0).toISOString() },
      },
    ],
  });
  const failure = await observer
    .getHandle(workflowId)
    .result()
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  if (!(failure instanceof WorkflowFailedError)) throw new Error(`the journey test worker did not start cleanly: ${String(failure)}`);
}

/** Starts (once per process) the shared server and worker; later calls return the same one. */
export async function journeyTestServer(): Promise<JourneyTestServer> {
  current ??= start();
  return (await current).server;
}

/**
 * Starts the shared server ahead of the first test (call it in `beforeAll`), so that the start-up
 * (about a second for the Java server, a few for the workflow bundle) is not billed to one test.
 */
export async function startJourneyTestServer(): Promise<void> {
  await journeyTestServer();
}

/**
 * Ends every run the finished test left waiting (call it in `afterEach`). Runs share the server's
 * clock, so a later test's `advance` would otherwise wake them: their timers, workflow tasks and
 * activities would run on the shared worker, billed to that later test.
 */
export async function endJourneyTestRuns(): Promise<void> {
  if (current === undefined) return;
  const { server } = await current;
  const open = [...server.runs].filter(([, run]) => run.live);
  server.runs.clear();
  await Promise.all(
    open.map(([workflowId]) =>
      server.observer
        .getHandle(workflowId)
        .terminate('the test ended')
        .catch((error: unknown) => {
          // it closed on its own meanwhile
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        }),
    ),
  );
}

/** Stops the shared server and worker (call it in `afterAll`). */
export async function stopJourneyTestServer(): Promise<void> {
  const started = current;
  current = undefined;
  if (started !== undefined) await (await started).stop();
}
