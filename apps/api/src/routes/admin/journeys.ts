import { z } from 'zod';
import { conditionOperators } from '@waymark/journey';
import { cancelJourneyState, getJourneyState, journeyStatuses, listJourneyLogs, listJourneyStates } from '@waymark/core/journeys/journey-states';
import { getJourneyDetail, listJourneys, updateJourneyEnabled } from '@waymark/core/journeys/journey-admin';
import { batchEnroll, enrollUser } from '@waymark/core/journeys/enroll';
import { contactIdOfUser } from '@waymark/core/contacts/contact';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import {
  bearerErrors,
  booleanQuery,
  emailAddress,
  errorBody,
  listEnvelope,
  nullableTimestamp,
  page,
  paginationQuery,
  text,
  timestamp,
} from '../../schemas/common';

const propertyCondition = z
  .object({ type: z.literal('property'), property: z.string(), operator: z.enum(conditionOperators), value: z.unknown().optional() })
  .meta({ id: 'PropertyCondition' });
const eventRule = z.object({ event: z.string(), where: z.array(propertyCondition).optional() });
const counts = z.object({ active: z.number(), waiting: z.number(), completed: z.number(), failed: z.number(), exited: z.number() });

const journeyState = z
  .object({
    id: z.uuid(),
    userId: z.string(),
    userEmail: z.string(),
    journeyId: z.string(),
    currentNodeId: z.string(),
    status: z.enum(journeyStatuses),
    workflowId: z.string(),
    workflowRunId: z.string(),
    context: z.record(z.string(), z.unknown()),
    errorMessage: z.string().nullable(),
    entryCount: z.number(),
    completedAt: nullableTimestamp,
    exitedAt: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
    journeyVersion: z
      .string()
      .nullable()
      .describe(
        "The journey's version when this run started: a short hash of the journey's code and the templates it names. Null for runs started before versions were recorded.",
      ),
    holdout: z
      .boolean()
      .nullable()
      .describe("The person's arm: true when held out of the journey's emails, false in treatment, null when the journey has neither a goal nor a holdout"),
    convertedAt: nullableTimestamp.describe("When the journey's goal event arrived within its window (null: not converted)"),
    conversionValue: z.number().nullable().describe("The goal's value for this conversion (the goal's `value`), null when none"),
    conversionEventId: z.uuid().nullable().describe('The event that met the goal'),
  })
  .meta({ id: 'JourneyState' });

const runningVersion = z
  .object({
    version: z.string().nullable().describe('null: runs started before versions were recorded'),
    running: z.number().describe('live (active or waiting) runs of this version'),
    steps: z
      .array(z.object({ nodeId: z.string(), status: z.enum(['active', 'waiting']), count: z.number() }))
      .describe('where those runs are, most populated first'),
    lastStartedAt: timestamp,
  })
  .meta({ id: 'JourneyRunningVersion' });

const journeyLog = z
  .object({
    id: z.uuid(),
    fromNodeId: z.string().nullable(),
    toNodeId: z.string(),
    action: z.string(),
    detail: z.record(z.string(), z.unknown()).nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'JourneyLog' });

const journeySummary = z
  .object({ id: z.string(), name: z.string(), description: z.string(), enabled: z.boolean(), trigger: eventRule, entryLimit: z.string(), counts })
  .meta({ id: 'JourneySummary' });
const journeyDetail = z
  .object({
    id: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    trigger: eventRule,
    entryLimit: z.string(),
    exitOn: z.array(eventRule),
    suppress: z.object({ hours: z.number() }).nullable(),
    quietHours: z
      .object({ from: z.string(), to: z.string() })
      .nullable()
      .describe("Sends inside this window of the recipient's local time (HH:MM, their contact's timezone or DEFAULT_TIMEZONE) wait until it ends"),
    goal: z
      .object({ event: z.string(), within: z.string(), where: z.array(propertyCondition), exitOnGoal: z.boolean() })
      .nullable()
      .describe(
        'What converting means for this journey (docs/journeys.md, "Goals, holdouts and lift"); its numbers are at GET /v1/admin/journeys/{id}/outcomes',
      ),
    holdout: z.object({ percent: z.number() }).nullable().describe("The share of people held out of the journey's emails"),
    counts,
    recentStates: z.array(journeyState),
    version: z
      .string()
      .nullable()
      .describe(
        'This deployment\'s version of the journey: a short content hash of its module and the templates it names (docs/journeys.md, "Changing a live journey")',
      ),
    runningVersions: z.array(runningVersion).describe('every version that still has running enrollments, newest first'),
  })
  .meta({ id: 'JourneyDetail' });

const journeyParams = z.object({ id: z.string().min(1).max(100) });
const stateParams = journeyParams.extend({ stateId: z.uuid() });
const enrollUserBody = z.object({ userId: text(255), userEmail: emailAddress, properties: z.record(z.string(), z.unknown()).optional() });

const tags = ['journeys'];

/** Admin plane: journeys. Reads need `read`; mutations `journey-admin`; batch enroll `full-admin`. */
export const journeyRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/journeys',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'List journeys with status counts',
        querystring: paginationQuery.extend({ enabled: booleanQuery.optional() }),
        response: { 200: listEnvelope('journeys', journeySummary), ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await listJourneys(deps.db, deps.journeys, request.query));
    },
  );

  app.get(
    '/v1/admin/journeys/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Journey detail with the 10 most recent states',
        params: journeyParams,
        response: { 200: z.object({ journey: journeyDetail }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => ({ journey: await getJourneyDetail(deps.db, deps.journeys, request.params.id) }),
  );

  app.patch(
    '/v1/admin/journeys/:id',
    {
      config: { scope: 'journey-admin', audit: { resource: 'journey', action: 'update' } },
      schema: {
        tags,
        summary: 'Enable or disable a journey (persisted; effective on the next trigger)',
        params: journeyParams,
        body: z.object({ enabled: z.boolean() }),
        response: {
          200: z.object({ journey: z.object({ id: z.string(), name: z.string(), enabled: z.boolean(), updatedAt: timestamp }) }),
          404: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request) => {
      const journey = await updateJourneyEnabled(deps.db, deps.journeys, request.params.id, request.body.enabled, request.principal?.actor ?? null);
      request.auditRecord = { detail: { enabled: request.body.enabled } };
      return { journey };
    },
  );

  app.get(
    '/v1/admin/journeys/:id/states',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'States (enrollments) of a journey, newest first',
        params: journeyParams,
        querystring: paginationQuery.extend({ status: z.enum(journeyStatuses).optional(), userId: z.string().min(1).optional() }),
        response: { 200: listEnvelope('states', journeyState), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      deps.journeys.get(request.params.id);
      return page(request.query, await listJourneyStates(deps.db, { journeyId: request.params.id, ...request.query }));
    },
  );

  app.get(
    '/v1/admin/journeys/:id/states/:stateId',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'One state with its logs',
        params: stateParams,
        response: { 200: z.object({ state: journeyState, logs: z.array(journeyLog) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      deps.journeys.get(request.params.id);
      const state = await getJourneyState(deps.db, request.params.id, request.params.stateId);
      return { state, logs: await listJourneyLogs(deps.db, state.id) };
    },
  );

  app.delete(
    '/v1/admin/journeys/:id/states/:stateId',
    {
      config: { scope: 'journey-admin', audit: { resource: 'journey', action: 'cancel' } },
      schema: {
        tags,
        summary: 'Cancel a live state: exited + cancel the run',
        params: stateParams,
        response: {
          200: z.object({ state: z.object({ id: z.uuid(), status: z.literal('exited'), exitedAt: timestamp }), workflowCancelled: z.boolean() }),
          404: errorBody,
          409: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request) => {
      deps.journeys.get(request.params.id);
      const result = await cancelJourneyState(
        { db: deps.db, logger: request.log, orchestrator: deps.temporal.orchestrator },
        request.params.id,
        request.params.stateId,
      );
      request.auditRecord = { resourceId: request.params.id, detail: { stateId: request.params.stateId, workflowCancelled: result.workflowCancelled } };
      return result;
    },
  );

  app.post(
    '/v1/admin/journeys/:id/enroll',
    {
      config: { scope: 'journey-admin', audit: { resource: 'journey', action: 'enroll' } },
      schema: {
        tags,
        summary: "Enroll a user: dispatches the journey's trigger event through the pipeline",
        params: journeyParams,
        body: enrollUserBody,
        response: { 202: z.object({ enrolled: z.literal(true), event: z.string(), userId: z.string() }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const { event } = await enrollUser(deps, request.params.id, request.body);
      // the contact's id, not the person's user id: an erasure cannot take an identifier back from the audit log
      request.auditRecord = { detail: { contactId: (await contactIdOfUser(deps.db, request.body.userId)) ?? null } };
      return reply.status(202).send({ enrolled: true as const, event, userId: request.body.userId });
    },
  );

  app.post(
    '/v1/admin/journeys/:id/enroll/batch',
    {
      config: { scope: 'full-admin', audit: { resource: 'journey', action: 'enroll' } },
      schema: {
        tags,
        summary: 'Enroll up to 500 users; users rejected by an entry guard are counted as skipped',
        description:
          'The entry guards are checked for the whole batch at once; the accepted users are handed to one durable background run that dispatches their trigger events (16 at a time, in chunks of 50), so the answer does not wait for the journey runs to start.',
        params: journeyParams,
        body: z.object({ users: z.array(enrollUserBody).min(1).max(500) }),
        response: {
          200: z.object({ enrolled: z.number(), skipped: z.number(), results: z.array(z.object({ userId: z.string(), enrolled: z.boolean() })) }),
          404: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request) => {
      const result = await batchEnroll({ ...deps, jobs: deps.temporal.jobs }, request.params.id, request.body.users);
      request.auditRecord = { detail: { enrolled: result.enrolled, skipped: result.skipped } };
      return result;
    },
  );

  app.get(
    '/v1/admin/journey-logs/:stateId',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'A state and its logs in chronological order',
        params: z.object({ stateId: z.uuid() }),
        response: { 200: z.object({ state: journeyState, logs: z.array(journeyLog) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const state = await getJourneyState(deps.db, undefined, request.params.stateId);
      return { state, logs: await listJourneyLogs(deps.db, state.id) };
    },
  );
};
