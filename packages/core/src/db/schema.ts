import type { Insertable, Selectable, Updateable } from 'kysely';
import type { AddressSuppressionsTable, ContactsTable, EmailPreferencesTable, ImportJobsTable, ListMembershipsTable, ListsTable } from './tables/contacts';
import type { EventEffectsTable, EventsTable, SystemEmailOutboxTable, ReplayJobEventsTable, ReplayJobsTable } from './tables/events';
import type {
  EnrollBatchUsersTable,
  JourneyEntriesTable,
  JourneyLogsTable,
  JourneyOutcomeCountsTable,
  JourneyOverridesTable,
  JourneyStateCountsTable,
  JourneyStatesTable,
  JourneyStepCountsTable,
  ProgramHoldoutCountsTable,
  SimulationJobsTable,
} from './tables/journeys';
import type {
  DeliveryCapClaimsTable,
  EmailOpensTable,
  EmailProviderNotificationsTable,
  EmailSendsTable,
  LinkClicksTable,
  ReputationBreakersTable,
  ReputationCountsTable,
  TrackedLinksTable,
  TrackingEventSweepsTable,
  WarmupDaysTable,
} from './tables/emails';
import type {
  ApiKeysTable,
  AuditLogsTable,
  OrganizationInvitationsTable,
  OrganizationMembersTable,
  OrganizationsTable,
  SessionsTable,
  UsersTable,
} from './tables/access';
import type { BroadcastCountsTable, BroadcastGoalDaysTable, BroadcastRecipientsTable, BroadcastsTable, SegmentsTable } from './tables/broadcasts';
import type { OutboundEventsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './tables/webhooks';
import type { AlertHistoryTable, AlertRulesTable, DlqEntriesTable, FilterCountsTable, RowCountsTable } from './tables/operations';

/**
 * Kysely table types for migrations/0001_initial.ts and the migrations after it, one file per feature
 * in tables/, gathered here into the one Database. Columns are camelCase here; the CamelCasePlugin
 * maps them to snake_case in SQL. Row types are `XRow` (docs/contributing.md, "find returns, get
 * throws"). Importers keep importing from db/schema: it re-exports every table file.
 */
export type { JsonObject, JsonValue } from './tables/columns';
export * from './tables/contacts';
export * from './tables/events';
export * from './tables/journeys';
export * from './tables/emails';
export * from './tables/access';
export * from './tables/broadcasts';
export * from './tables/webhooks';
export * from './tables/operations';

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
  programHoldoutCounts: ProgramHoldoutCountsTable;
  emailSends: EmailSendsTable;
  emailProviderNotifications: EmailProviderNotificationsTable;
  reputationCounts: ReputationCountsTable;
  reputationBreakers: ReputationBreakersTable;
  warmupDays: WarmupDaysTable;
  trackedLinks: TrackedLinksTable;
  linkClicks: LinkClicksTable;
  emailOpens: EmailOpensTable;
  trackingEventSweeps: TrackingEventSweepsTable;
  apiKeys: ApiKeysTable;
  auditLogs: AuditLogsTable;
  alertRules: AlertRulesTable;
  alertHistory: AlertHistoryTable;
  dlqEntries: DlqEntriesTable;
  eventEffects: EventEffectsTable;
  systemEmailOutbox: SystemEmailOutboxTable;
  importJobs: ImportJobsTable;
  simulationJobs: SimulationJobsTable;
  enrollBatchUsers: EnrollBatchUsersTable;
  segments: SegmentsTable;
  broadcasts: BroadcastsTable;
  broadcastRecipients: BroadcastRecipientsTable;
  broadcastCounts: BroadcastCountsTable;
  broadcastGoalDays: BroadcastGoalDaysTable;
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
