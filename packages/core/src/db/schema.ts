import type { ColumnType, Generated, GeneratedAlways, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Kysely table types for migrations/0001_initial.ts. Columns are camelCase here; the
 * CamelCasePlugin maps them to snake_case in SQL. Row types are `XRow` (docs/contributing.md,
 * "find returns, get throws").
 */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
type Json<T> = ColumnType<T, T | string | undefined, T | string>;

export interface ContactsTable {
  id: Generated<string>;
  externalId: string | null;
  email: string | null;
  properties: Json<JsonObject>;
  firstSeenAt: Timestamp;
  lastSeenAt: Timestamp;
  /** lastSeenAt truncated to the minute (UTC), computed by PostgreSQL: the indexed sort key of the contacts list (migration 0130) */
  lastSeenMinute: GeneratedAlways<Date>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface EmailPreferencesTable {
  id: Generated<string>;
  userId: string | null;
  email: string;
  unsubscribedAll: Generated<boolean>;
  suppressed: Generated<boolean>;
  suppressionReason: string | null;
  bounceCount: Generated<number>;
  categories: Json<Record<string, boolean>>;
  suppressedAt: NullableTimestamp;
  lastBounceAt: NullableTimestamp;
  complainedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** migrations/0160: the suppression of an address kept after its contact is deleted or erased */
export interface AddressSuppressionsTable {
  /** SHA-256 (hex) of lower(btrim(email)) */
  addressHash: string;
  reason: 'bounced' | 'complained' | 'manual' | 'unsubscribed';
  suppressedAt: Timestamp;
  createdAt: Generated<Date>;
}

export interface EventsTable {
  id: Generated<string>;
  userId: string;
  userEmail: string | null;
  event: string;
  properties: Json<JsonObject>;
  source: Generated<string>;
  idempotencyKey: string | null;
  occurredAt: Timestamp;
  createdAt: Timestamp;
  /** set when EVENT_CATALOG_MODE=quarantine kept an event that misses its catalog schema (migration 0080) */
  catalogViolations: Json<{ path: string; message: string }[]> | null;
}

export interface JourneyOverridesTable {
  journeyId: string;
  enabled: boolean;
  updatedBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type JourneyStatus = 'active' | 'waiting' | 'completed' | 'failed' | 'exited';

export interface JourneyStatesTable {
  id: Generated<string>;
  journeyId: string;
  userId: string;
  userEmail: string;
  currentNodeId: Generated<string>;
  status: ColumnType<JourneyStatus, JourneyStatus | undefined, JourneyStatus>;
  workflowId: string;
  workflowRunId: string | null;
  context: Json<JsonObject>;
  errorMessage: string | null;
  entryCount: Generated<number>;
  completedAt: NullableTimestamp;
  exitedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 0060: the event the run started from, generated from context.trigger.eventId */
  triggerEventId: ColumnType<string | null, never, never>;
  /** 0100: the journey's version when the run started (null for older runs) */
  journeyVersion: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0190: the person's arm (null: the journey has neither a goal nor a holdout) and their conversion */
  holdout: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  convertedAt: NullableTimestamp;
  /** numeric: read as a string by the driver */
  conversionValue: ColumnType<string | null, number | null | undefined, number | null>;
  conversionEventId: ColumnType<string | null, string | null | undefined, string | null>;
}

/** 0190: per journey, version, arm, entry day (UTC) and backend shard */
export interface JourneyOutcomeCountsTable {
  journeyId: string;
  journeyVersion: string;
  holdout: boolean;
  day: ColumnType<Date, string, string>;
  shard: number;
  enrolled: ColumnType<string, number | undefined, number>;
  converted: ColumnType<string, number | undefined, number>;
  value: ColumnType<string, number | undefined, number>;
}

/** 0190: the same per node */
export interface JourneyStepCountsTable {
  journeyId: string;
  journeyVersion: string;
  holdout: boolean;
  day: ColumnType<Date, string, string>;
  nodeId: string;
  shard: number;
  reached: ColumnType<string, number | undefined, number>;
  sent: ColumnType<string, number | undefined, number>;
  humanOpened: ColumnType<string, number | undefined, number>;
  humanClicked: ColumnType<string, number | undefined, number>;
  converted: ColumnType<string, number | undefined, number>;
}

export interface JourneyEntriesTable {
  journeyId: string;
  userId: string;
  entryCount: Generated<number>;
  firstEnteredAt: Timestamp;
  lastEnteredAt: Timestamp;
}

export interface JourneyLogsTable {
  id: Generated<string>;
  journeyStateId: string;
  fromNodeId: string | null;
  toNodeId: string;
  action: string;
  detail: Json<JsonObject | null>;
  createdAt: Timestamp;
}

export type EmailStatus =
  'queued' | 'rendered' | 'sent' | 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'failed' | 'cancelled' | 'unknown_dropped';

/** Why an open or a click was made by a machine, not a person (docs/email.md, "Machine opens and clicks"; migration 0075). */
export const machineReasons = ['head_request', 'scanner_user_agent', 'apple_mpp', 'too_fast', 'honeypot'] as const;
export type MachineReason = (typeof machineReasons)[number];

export interface EmailSendsTable {
  id: Generated<string>;
  journeyStateId: string | null;
  userId: string | null;
  templateKey: string;
  providerMessageId: string | null;
  fromEmail: string;
  toEmail: string;
  subject: Generated<string>;
  category: Generated<string>;
  status: ColumnType<EmailStatus, EmailStatus | undefined, EmailStatus>;
  idempotencyKey: string | null;
  data: Json<JsonObject>;
  errorMessage: string | null;
  sentAt: NullableTimestamp;
  deliveredAt: NullableTimestamp;
  /** first open / click of any kind */
  openedAt: NullableTimestamp;
  clickedAt: NullableTimestamp;
  /** first open / click by a person (0075) */
  humanOpenedAt: NullableTimestamp;
  humanClickedAt: NullableTimestamp;
  bouncedAt: NullableTimestamp;
  complainedAt: NullableTimestamp;
  /** 0003: set when a provider call begins; see migrations/0003_email_delivery.ts */
  sendStartedAt: NullableTimestamp;
  sendAttempts: Generated<number>;
  /** 0110: the broadcast this email belongs to (docs/broadcasts.md) */
  broadcastId: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0215: the template catalog's locale it was rendered in (docs/email.md, "Languages"); null before 0215 */
  locale: ColumnType<string | null, string | null | undefined, string | null>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** An admitted send in flight, counted by the frequency caps until its email_sends row exists (0115). */
export interface DeliveryCapClaimsTable {
  idempotencyKey: string;
  /** lower-cased address */
  email: string;
  category: string;
  createdAt: Date;
}

export interface EmailProviderNotificationsTable {
  messageId: string;
  notificationType: string;
  receivedAt: Timestamp;
  /** 0156: the send it was about, when known (by provider message id or the send id tag) */
  emailSendId: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0156: SES's own event or notification type (`Send`, `Bounce`, …) */
  eventType: ColumnType<string | null, string | null | undefined, string | null>;
}

/** 0205: the reputation breaker's groups (docs/email.md, "Reputation breaker") */
export type SendGroup = 'marketing' | 'transactional';
export type BreakerState = 'ok' | 'slowed' | 'paused';

/** 0205: per hour, group and mailbox provider, what SES's events counted */
export interface ReputationCountsTable {
  sendGroup: SendGroup;
  provider: string;
  hour: Timestamp;
  sends: Generated<number>;
  bounces: Generated<number>;
  complaints: Generated<number>;
}

export interface BreakerBaseline {
  at: string;
  sends: number;
  bounces: number;
  complaints: number;
}

/** 0205: the breaker's state per group and provider (no row: ok) */
export interface ReputationBreakersTable {
  sendGroup: SendGroup;
  provider: string;
  state: BreakerState;
  since: Timestamp;
  clearSince: NullableTimestamp;
  /** the window's counts at a manual resume, with its time: set aside for one window */
  baseline: ColumnType<BreakerBaseline | null, string | null | undefined, string | null>;
  updatedAt: Generated<Date>;
}
export type ReputationBreakerRow = Selectable<ReputationBreakersTable>;

/** 0260: per UTC day of the warm-up ramp, the marketing sends it let through */
export interface WarmupDaysTable {
  day: ColumnType<Date, string, string>;
  used: Generated<number>;
  updatedAt: Generated<Date>;
}

export interface TrackedLinksTable {
  id: Generated<string>;
  emailSendId: string;
  originalUrl: string;
  clickCount: Generated<number>;
  /** the invisible link of every tracked email (0075): its id is the send's id */
  honeypot: Generated<boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface LinkClicksTable {
  id: Generated<string>;
  trackedLinkId: string;
  ipAddress: string | null;
  userAgent: string | null;
  machine: Generated<boolean>;
  machineReason: MachineReason | null;
  clickedAt: Timestamp;
  /** 0162: inside the machine-click window, its verdict not settled yet */
  pending: Generated<boolean>;
}

/** Every fetch of a send's open pixel (0075). */
export interface EmailOpensTable {
  id: Generated<string>;
  emailSendId: string;
  ipAddress: string | null;
  userAgent: string | null;
  machine: Generated<boolean>;
  machineReason: MachineReason | null;
  openedAt: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<string>;
  name: string;
  keyPrefix: string;
  keyHash: string;
  scopes: string[];
  expiresAt: NullableTimestamp;
  revokedAt: NullableTimestamp;
  lastUsedAt: NullableTimestamp;
  createdAt: Timestamp;
}

/** who wrote an audit row: a stored key, the legacy ADMIN_API_KEY, or a signed-in user */
/** `system`: Waymark itself (the worker disabling a failing webhook endpoint) */
export type AuditActorType = 'key' | 'legacy' | 'user' | 'system';

export interface AuditLogsTable {
  id: Generated<string>;
  actor: string;
  actorKeyId: string | null;
  actorType: ColumnType<AuditActorType, AuditActorType | undefined, AuditActorType>;
  actorUserId: string | null;
  action: string;
  resource: string;
  resourceId: string | null;
  detail: Json<JsonObject | null>;
  ipAddress: string;
  createdAt: Timestamp;
}

export type AlertType = 'bounce_rate_exceeded' | 'journey_failure_spike' | 'delivery_issue' | 'high_complaint_rate' | 'webhook_endpoint_disabled';
export type AlertChannel = 'webhook' | 'chat' | 'email';

export interface AlertRulesTable {
  id: Generated<string>;
  name: string;
  type: AlertType;
  threshold: number;
  channel: AlertChannel;
  channelConfig: Json<JsonObject>;
  cooldownMinutes: Generated<number>;
  enabled: Generated<boolean>;
  lastTriggeredAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface AlertHistoryTable {
  id: Generated<string>;
  ruleId: string;
  ruleName: string;
  type: string;
  currentValue: number;
  threshold: number;
  channel: string;
  delivered: boolean;
  error: string | null;
  triggeredAt: Timestamp;
}

export type DlqStatus = 'pending' | 'retried' | 'discarded';

export interface DlqEntriesTable {
  id: Generated<string>;
  source: string;
  sourceId: string | null;
  payload: Json<JsonObject>;
  error: string;
  retryCount: Generated<number>;
  status: ColumnType<DlqStatus, DlqStatus | undefined, DlqStatus>;
  retriedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A journey start kept while Temporal was unreachable, until the relay starts it (migrations/0085). */
/** One journey effect of a stored event, until it is carried out (migrations/0152_event_effects.ts). */
export type EventEffectKind = 'start' | 'signal' | 'exit';

export interface EventEffectsTable {
  eventId: string;
  seq: number;
  kind: EventEffectKind;
  userId: string;
  journeyId: string;
  /** the run a signal goes to or an exit cancels; null for a start (its id is built from the event) */
  workflowId: string | null;
  attempts: Generated<number>;
  lastError: string | null;
  nextAttemptAt: Timestamp;
  /** the `traceparent` of the request that stored the event, with tracing on (migrations/0210) */
  traceContext: Generated<string | null>;
  createdAt: Generated<Timestamp>;
}

/** A system email kept until its run is started (migrations/0240_system_email_outbox.ts). */
export interface SystemEmailOutboxTable {
  idempotencyKey: string;
  /** the send input sealed under AUTH_SECRET (emails/sealed-input.ts) */
  sealed: string;
  attempts: Generated<number>;
  lastError: string | null;
  nextAttemptAt: Timestamp;
  createdAt: Generated<Timestamp>;
}

export type ImportStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface ImportJobsTable {
  id: Generated<string>;
  status: ColumnType<ImportStatus, ImportStatus | undefined, ImportStatus>;
  format: 'csv' | 'json';
  fileName: string | null;
  data: string;
  totalRows: Generated<number>;
  processedRows: Generated<number>;
  failedRows: Generated<number>;
  errors: Json<{ row: number; error: string }[]>;
  createdBy: string | null;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type SimulationStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface SimulationJobsTable {
  id: Generated<string>;
  journeyId: string;
  status: ColumnType<SimulationStatus, SimulationStatus | undefined, SimulationStatus>;
  windowSince: Timestamp;
  windowUntil: Timestamp;
  maxEnrollments: number;
  processed: Generated<number>;
  total: number | null;
  /** the report (core/journeys/simulation.ts, SimulationResult) once completed */
  result: Json<JsonObject> | null;
  error: string | null;
  createdBy: string | null;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ReplayJobsTable {
  id: Generated<string>;
  status: ColumnType<ImportStatus, ImportStatus | undefined, ImportStatus>;
  /** the request's selection, dates as ISO strings (core/replays/replay-selection.ts) */
  selection: Json<JsonObject>;
  snapshotTaken: Generated<boolean>;
  matched: Generated<number>;
  processed: Generated<number>;
  failed: Generated<number>;
  errors: Json<{ eventId: string | null; error: string }[]>;
  createdBy: string | null;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ReplayJobEventsTable {
  jobId: string;
  position: number;
  eventId: string;
}

/** 0105: saved audiences (docs/segments.md); `conditions` is the condition tree, checked on write */
export interface SegmentsTable {
  id: Generated<string>;
  name: string;
  description: string | null;
  conditions: Json<JsonObject>;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type BroadcastStatus = 'draft' | 'scheduled' | 'sending' | 'testing' | 'paused' | 'sent' | 'cancelled' | 'failed';

/** 0110: one email to an audience (docs/broadcasts.md); `variants` and `abTest` are checked on write */
export interface BroadcastsTable {
  id: Generated<string>;
  name: string;
  templateKey: string;
  category: string;
  audience: Json<JsonObject>;
  segmentId: string | null;
  data: Json<JsonObject>;
  subject: string | null;
  scheduledAt: NullableTimestamp;
  localTime: string | null;
  variants: Json<JsonObject[]> | null;
  abTest: Json<JsonObject> | null;
  status: ColumnType<BroadcastStatus, BroadcastStatus | undefined, BroadcastStatus>;
  pausedFrom: 'scheduled' | 'sending' | 'testing' | null;
  /** 0205: `reputation` when the reputation breaker paused it (its resume resumes it) */
  pausedReason: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0245: the goal as given (`{event, within, where?}`), its window in ms, the share held out */
  goal: Json<JsonObject> | null;
  goalWithinMs: ColumnType<string | null, number | null | undefined, number | null>;
  holdoutPercent: ColumnType<number, number | undefined, number>;
  /** 0260: today's warm-up allowance was spent: the rest of the recipients send from this instant */
  warmupUntil: ColumnType<Date | null, Date | null | undefined, Date | null>;
  audienceSize: number | null;
  winnerVariantId: string | null;
  testEndsAt: NullableTimestamp;
  error: string | null;
  createdBy: string | null;
  sendRequestedAt: NullableTimestamp;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type BroadcastRecipientStatus = 'pending' | 'sent' | 'failed' | 'skipped' | 'cancelled';
export type BroadcastPhase = 'all' | 'test' | 'rest';

/** 0110: the audience snapshot; UNIQUE (broadcastId, contactId) makes it one email per contact */
export interface BroadcastRecipientsTable {
  broadcastId: string;
  contactId: string;
  position: number;
  userId: string | null;
  email: string | null;
  variantId: string | null;
  phase: ColumnType<BroadcastPhase, BroadcastPhase | undefined, BroadcastPhase>;
  sendAt: NullableTimestamp;
  status: ColumnType<BroadcastRecipientStatus, BroadcastRecipientStatus | undefined, BroadcastRecipientStatus>;
  reason: string | null;
  emailSendId: string | null;
  updatedAt: Generated<Date>;
  /** 0245: a goal broadcast's recipient whose turn came (sent, skipped or held out); the conversion */
  exposedAt: NullableTimestamp;
  convertedAt: NullableTimestamp;
  conversionEventId: string | null;
}

export interface ListsTable {
  id: Generated<string>;
  key: string;
  name: string;
  description: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ListMembershipsTable {
  listId: string;
  contactId: string;
  subscribed: boolean;
  updatedAt: Timestamp;
}

export interface OutboundEventsTable {
  id: Generated<string>;
  event: string;
  payload: Json<JsonObject>;
  /** when the delivery workflow fanned the event out to its endpoints */
  dispatchedAt: NullableTimestamp;
  /** set only for an event meant for one endpoint (webhook.test) */
  endpointId: ColumnType<string | null, string | null | undefined, string | null>;
  /** the `traceparent` of the work that wrote it, with tracing on (the column's default reads it: migrations/0265) */
  traceContext: ColumnType<string | null, never, never>;
  createdAt: Timestamp;
}

export interface WebhookEndpointsTable {
  id: Generated<string>;
  url: string;
  description: string | null;
  events: string[];
  enabled: Generated<boolean>;
  secret: string;
  disabledReason: ColumnType<string | null, string | null | undefined, string | null>;
  disabledAt: NullableTimestamp;
  failingSince: NullableTimestamp;
  /** while failing: no attempt before this (docs/webhooks.md, "Isolation") */
  backoffUntil: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed' | 'skipped';

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  endpointId: string;
  outboundEventId: string;
  eventType: string;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempts: Generated<number>;
  lastStatusCode: ColumnType<number | null, number | null | undefined, number | null>;
  lastDurationMs: ColumnType<number | null, number | null | undefined, number | null>;
  lastError: ColumnType<string | null, string | null | undefined, string | null>;
  lastResponseBody: ColumnType<string | null, string | null | undefined, string | null>;
  nextAttemptAt: NullableTimestamp;
  /** the first attempt of the current retry schedule (the clock the retry window runs on) */
  firstAttemptAt: NullableTimestamp;
  /** the lease of the delivery slot working on it (null: nobody) */
  lockedUntil: NullableTimestamp;
  deliveredAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string;
  /** how the account was made: `admin` (from the server) or `member` (by invitation) */
  role: Generated<string>;
  /** the person's one role over the installation's data (migrations/0146_person_roles.ts) */
  accessRole: ColumnType<MemberRole, MemberRole | undefined, MemberRole>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface SessionsTable {
  id: string;
  userId: string;
  expiresAt: Timestamp;
}

export interface OrganizationsTable {
  id: Generated<string>;
  name: string;
  slug: string;
  createdAt: Timestamp;
}

export type MemberRole = 'owner' | 'admin' | 'editor' | 'viewer';

export interface OrganizationMembersTable {
  organizationId: string;
  userId: string;
  createdAt: Timestamp;
}

export interface OrganizationInvitationsTable {
  id: Generated<string>;
  organizationId: string;
  email: string;
  role: MemberRole;
  tokenHash: string;
  invitedBy: string | null;
  expiresAt: Timestamp;
  acceptedAt: NullableTimestamp;
  createdAt: Timestamp;
}

/** Exact row counts kept by triggers (migration 0070): a table's count is the sum of its shards. */
export interface RowCountsTable {
  tableName: string;
  shard: number;
  n: number;
}

/** Exact row counts per value of a filter column (migration 0132): a value's count is the sum of its shards. */
export interface FilterCountsTable {
  tableName: string;
  columnName: string;
  value: string;
  shard: number;
  n: number;
}

/**
 * A broadcast's recipient outcomes and its sends' engagement per (broadcast, variant, bucket), kept
 * by triggers (migration 0135); a bucket's count is the sum of its shards.
 */
export interface BroadcastCountsTable {
  broadcastId: string;
  variantId: string | null;
  bucket: string;
  shard: number;
  n: number;
}

/** Exact journey-state counts per (journey, status), kept by triggers (migration 0070); summed over shards. */
export interface JourneyStateCountsTable {
  journeyId: string;
  status: JourneyStatus;
  shard: number;
  n: number;
}

export interface Database {
  contacts: ContactsTable;
  emailPreferences: EmailPreferencesTable;
  addressSuppressions: AddressSuppressionsTable;
  events: EventsTable;
  journeyOverrides: JourneyOverridesTable;
  journeyStates: JourneyStatesTable;
  journeyEntries: JourneyEntriesTable;
  journeyLogs: JourneyLogsTable;
  journeyOutcomeCounts: JourneyOutcomeCountsTable;
  journeyStepCounts: JourneyStepCountsTable;
  emailSends: EmailSendsTable;
  emailProviderNotifications: EmailProviderNotificationsTable;
  reputationCounts: ReputationCountsTable;
  reputationBreakers: ReputationBreakersTable;
  warmupDays: WarmupDaysTable;
  trackedLinks: TrackedLinksTable;
  linkClicks: LinkClicksTable;
  emailOpens: EmailOpensTable;
  apiKeys: ApiKeysTable;
  auditLogs: AuditLogsTable;
  alertRules: AlertRulesTable;
  alertHistory: AlertHistoryTable;
  dlqEntries: DlqEntriesTable;
  eventEffects: EventEffectsTable;
  systemEmailOutbox: SystemEmailOutboxTable;
  importJobs: ImportJobsTable;
  simulationJobs: SimulationJobsTable;
  segments: SegmentsTable;
  broadcasts: BroadcastsTable;
  broadcastRecipients: BroadcastRecipientsTable;
  broadcastCounts: BroadcastCountsTable;
  replayJobs: ReplayJobsTable;
  replayJobEvents: ReplayJobEventsTable;
  lists: ListsTable;
  listMemberships: ListMembershipsTable;
  outboundEvents: OutboundEventsTable;
  webhookEndpoints: WebhookEndpointsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  users: UsersTable;
  sessions: SessionsTable;
  organizations: OrganizationsTable;
  organizationMembers: OrganizationMembersTable;
  organizationInvitations: OrganizationInvitationsTable;
  rowCounts: RowCountsTable;
  filterCounts: FilterCountsTable;
  journeyStateCounts: JourneyStateCountsTable;
  deliveryCapClaims: DeliveryCapClaimsTable;
}

export type ContactRow = Selectable<ContactsTable>;
export type SegmentRow = Selectable<SegmentsTable>;
export type BroadcastRow = Selectable<BroadcastsTable>;
export type BroadcastRecipientRow = Selectable<BroadcastRecipientsTable>;
export type EmailPreferencesRow = Selectable<EmailPreferencesTable>;
export type EventRow = Selectable<EventsTable>;
export type NewEventRow = Insertable<EventsTable>;
export type JourneyStateRow = Selectable<JourneyStatesTable>;
export type JourneyLogRow = Selectable<JourneyLogsTable>;
export type EmailSendRow = Selectable<EmailSendsTable>;
export type EmailSendUpdate = Updateable<EmailSendsTable>;
export type TrackedLinkRow = Selectable<TrackedLinksTable>;
export type LinkClickRow = Selectable<LinkClicksTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
export type AlertRuleRow = Selectable<AlertRulesTable>;
export type AlertHistoryRow = Selectable<AlertHistoryTable>;
export type DlqEntryRow = Selectable<DlqEntriesTable>;
export type ImportJobRow = Selectable<ImportJobsTable>;
export type SimulationJobRow = Selectable<SimulationJobsTable>;
export type ReplayJobRow = Selectable<ReplayJobsTable>;
export type ListRow = Selectable<ListsTable>;
export type OutboundEventRow = Selectable<OutboundEventsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type UserRow = Selectable<UsersTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
export type OrganizationInvitationRow = Selectable<OrganizationInvitationsTable>;
