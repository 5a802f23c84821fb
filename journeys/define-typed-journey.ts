import { typedJourneyDefiner } from '@waymark/journey';
// type-only, both: the workflow bundle evaluates the journey files once per run, so they load
// neither zod (the catalog's schemas) nor the React templates (docs/scaling.md, worker memory)
import type { events } from './events';
import type { TemplateProps } from './templates/registry';

/** `defineJourney` checked against the catalog and the templates' props (used by every journey here). */
export const defineTypedJourney = typedJourneyDefiner<typeof events.schemas, TemplateProps>();
