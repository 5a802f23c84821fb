import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_initial';
import * as m0003 from './0003_email_delivery';
import * as m0004 from './0004_admin_plane';
import * as m0005 from './0005_write_path_indexes';
import * as m0015 from './0015_outbound_webhooks';
import * as m0016 from './0016_outbound_event_triggers';
import * as m0020 from './0020_sessions';
import * as m0050 from './0050_replay_jobs';
import * as m0055 from './0055_audit_actor_user_index';
import * as m0060 from './0060_event_journeys';
import * as m0065 from './0065_simulation_jobs';
import * as m0070 from './0070_row_counters';
import * as m0075 from './0075_machine_hits';
import * as m0080 from './0080_event_catalog_violations';
import * as m0085 from './0085_journey_pending_starts';
import * as m0100 from './0100_journey_versions';
import * as m0105 from './0105_segments';
import * as m0110 from './0110_broadcasts';
import * as m0115 from './0115_delivery_cap_claims';
import * as m0130 from './0130_contacts_recency_index';
import * as m0131 from './0131_events_segment_index';
import * as m0132 from './0132_filter_counts';
import * as m0135 from './0135_broadcast_counts';
import * as m0136 from './0136_broadcast_pending_index';
import * as m0140 from './0140_email_status_counts';
import * as m0141 from './0141_row_counts_shards';
import * as m0142 from './0142_journey_live_steps_index';
import * as m0143 from './0143_redact_auth_links';
import * as m0146 from './0146_person_roles';
import * as m0152 from './0152_event_effects';
import * as m0156 from './0156_unknown_deliveries';
import * as m0160 from './0160_address_suppressions';
import * as m0161 from './0161_email_cancelled_status';
import * as m0162 from './0162_pending_clicks';
import * as m0164 from './0164_webhook_delivery_queue';
import * as m0190 from './0190_journey_outcomes';
import * as m0205 from './0205_reputation_breaker';
import * as m0210 from './0210_effect_trace_context';
import * as m0215 from './0215_email_send_locale';
import * as m0240 from './0240_system_email_outbox';
import * as m0245 from './0245_broadcast_goals';
import * as m0260 from './0260_warmup_days';
import * as m0265 from './0265_outbound_event_trace_context';
import * as m0270 from './0270_broadcast_goal_days';
import * as m0280 from './0280_program_holdout_outcomes';
import * as m0295 from './0295_broadcast_counts_of_deleted';
import * as m0296 from './0296_event_stream_position';
import * as m0297 from './0297_tracking_event_sweep';
import * as m0298 from './0298_email_send_erased';
import * as m0299 from './0299_import_data_kept_while_running';
import * as m0300 from './0300_enroll_batch_users';

/**
 * Every migration, in order. A static list (rather than reading the folder at run time) works
 * the same under tsx, vitest and a bundler. Add new migrations at the end.
 */
export const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0003_email_delivery': m0003,
  '0004_admin_plane': m0004,
  '0005_write_path_indexes': m0005,
  '0015_outbound_webhooks': m0015,
  '0016_outbound_event_triggers': m0016,
  '0020_sessions': m0020,
  '0050_replay_jobs': m0050,
  '0055_audit_actor_user_index': m0055,
  '0060_event_journeys': m0060,
  '0065_simulation_jobs': m0065,
  '0070_row_counters': m0070,
  '0075_machine_hits': m0075,
  '0080_event_catalog_violations': m0080,
  '0085_journey_pending_starts': m0085,
  '0100_journey_versions': m0100,
  '0105_segments': m0105,
  '0110_broadcasts': m0110,
  '0115_delivery_cap_claims': m0115,
  '0130_contacts_recency_index': m0130,
  '0131_events_segment_index': m0131,
  '0132_filter_counts': m0132,
  '0135_broadcast_counts': m0135,
  '0136_broadcast_pending_index': m0136,
  '0140_email_status_counts': m0140,
  '0141_row_counts_shards': m0141,
  '0142_journey_live_steps_index': m0142,
  '0143_redact_auth_links': m0143,
  '0146_person_roles': m0146,
  '0152_event_effects': m0152,
  '0156_unknown_deliveries': m0156,
  '0160_address_suppressions': m0160,
  '0161_email_cancelled_status': m0161,
  '0162_pending_clicks': m0162,
  '0164_webhook_delivery_queue': m0164,
  '0190_journey_outcomes': m0190,
  '0205_reputation_breaker': m0205,
  '0210_effect_trace_context': m0210,
  '0215_email_send_locale': m0215,
  '0240_system_email_outbox': m0240,
  '0245_broadcast_goals': m0245,
  '0260_warmup_days': m0260,
  '0265_outbound_event_trace_context': m0265,
  '0270_broadcast_goal_days': m0270,
  '0280_program_holdout_outcomes': m0280,
  '0295_broadcast_counts_of_deleted': m0295,
  '0296_event_stream_position': m0296,
  '0297_tracking_event_sweep': m0297,
  '0298_email_send_erased': m0298,
  '0299_import_data_kept_while_running': m0299,
  '0300_enroll_batch_users': m0300,
};
