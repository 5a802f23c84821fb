import { z } from 'zod';
import { getJourneyMap } from '@waymark/core/journeys/journey-map';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody } from '../../schemas/common';

const count = z.number().int().nullable();
const numbers = {
  waiting: count.describe('live runs (active or waiting) whose current step is this node; null where runs never stop (a branch, the exit, the end)'),
  sent: count.describe("this email node's emails that left for the provider"),
  humanOpened: count.describe('of those, opened by a person (machine opens left out: docs/email.md, "Machine opens and clicks")'),
  humanClicked: count.describe('of those, clicked by a person'),
  converted: count.describe('people of the treatment arm who converted after reaching this node; null for a journey without a goal'),
};

const mapNode = z
  .object({
    id: z.string().describe("unique in the map; the run's node id where the step has one"),
    kind: z.enum(['trigger', 'email', 'sleep', 'wait', 'branch', 'step', 'exit', 'goal', 'end']),
    label: z.string().describe('what the node does, in words'),
    nodeId: z.string().nullable().describe('the id runs store as currentNodeId at this step (null: the trigger, a branch, the exit, the end)'),
    templateKey: z.string().nullable(),
    ...numbers,
  })
  .meta({ id: 'JourneyMapNode' });

const journeyMap = z
  .object({
    journeyId: z.string(),
    version: z.string().nullable().describe('the version whose runs the numbers count (null: runs started before versions were recorded)'),
    untraceable: z.string().nullable().describe('why the journey cannot be drawn from its code (nodes and edges are then empty); null when it is'),
    nodes: z.array(mapNode),
    edges: z.array(
      z.object({
        from: z.string(),
        to: z.string(),
        label: z.string().nullable().describe('the outcome that takes this edge ("yes", "got session.started", "after 7 days"); null: the only way on'),
        anyTime: z.boolean().describe('not a step of the run: the exit can end a run at any time after the trigger'),
      }),
    ),
    elsewhere: z
      .array(z.object({ nodeId: z.string(), ...numbers }))
      .describe("steps this version's runs stored that the current code does not have (an older version's), with their numbers"),
  })
  .meta({ id: 'JourneyMap' });

/** The version literal that selects the runs started before versions were recorded. */
const UNVERSIONED = 'unversioned';

/** Admin plane: a journey's map drawn from its code, with live numbers per node (read). */
export const journeyMapRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/journeys/:id/map',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['journeys'],
        summary: "A journey's map drawn from its code, with each node's live numbers for one version",
        description:
          'The map is traced from the journey\'s code over every branch (docs/journeys.md, "Journey map"); a journey whose steps depend on data the trace cannot enumerate answers `untraceable` with the reason. The numbers come from the stored runs and sends of the chosen version.',
        params: z.object({ id: z.string().min(1).max(100) }),
        querystring: z.object({
          version: z
            .string()
            .regex(/^[a-z0-9]{1,64}$/, 'version is a journey version (a short hex hash) or "unversioned"')
            .optional()
            .describe(`the version whose runs to count (default: this deployment's); "${UNVERSIONED}": runs started before versions were recorded`),
        }),
        response: { 200: z.object({ map: journeyMap }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const { version } = request.query;
      return { map: await getJourneyMap(deps.db, deps.journeys, request.params.id, version === UNVERSIONED ? null : version) };
    },
  );
};
