import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes registered on the dev server by scripts/stack.sh, so a run can be
 * found in the Temporal Web UI with e.g. `WaymarkJourneyId="welcome-series"`.
 */
export const JOURNEY_ID_ATTRIBUTE = defineSearchAttributeKey('WaymarkJourneyId', SearchAttributeType.KEYWORD);
export const USER_ID_ATTRIBUTE = defineSearchAttributeKey('WaymarkUserId', SearchAttributeType.KEYWORD);
/** The journey's version when the run started (runtime/journey-versions.ts): `WaymarkJourneyVersion="3a9f1c"`. */
export const JOURNEY_VERSION_ATTRIBUTE = defineSearchAttributeKey('WaymarkJourneyVersion', SearchAttributeType.KEYWORD);
