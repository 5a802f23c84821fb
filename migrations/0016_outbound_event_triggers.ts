import { sql, type Kysely } from 'kysely';

/**
 * Outbound events written by the database itself, in the transaction of the change they report
 * (docs/webhooks.md lists each type and its `data`). A trigger covers every write path (admin,
 * ingest, imports, the worker's activities, group-committed tracking) without threading an
 * outbox call through each of them, and costs one indexed probe of the tiny webhook_endpoints
 * table when nobody subscribes. Update triggers carry WHEN clauses, so the hottest write (every
 * ingested event moves contacts.last_seen_at) never even enters PL/pgSQL.
 *
 * contact.unsubscribed stays in application code (it names where the unsubscribe came from).
 * A transaction that sets `waymark.outbound_quiet = on` (the suppression import) emits no
 * preference events: that import is quiet by contract.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function waymark_record_outbound(event_type text, data jsonb) returns void language plpgsql as $$
    begin
      if exists (select 1 from webhook_endpoints where enabled and event_type = any (events)) then
        insert into outbound_events (event, payload) values (event_type, data);
      end if;
    end;
    $$;

    create function contacts_outbound() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        perform waymark_record_outbound('contact.deleted', jsonb_build_object('contactId', old.id, 'userId', old.external_id, 'email', old.email));
        return null;
      end if;
      perform waymark_record_outbound(
        case tg_op when 'INSERT' then 'contact.created' else 'contact.updated' end,
        jsonb_build_object('contactId', new.id, 'userId', new.external_id, 'email', new.email, 'properties', new.properties)
      );
      return null;
    end;
    $$;
    create trigger contacts_outbound_insert after insert on contacts for each row execute function contacts_outbound();
    create trigger contacts_outbound_update after update of email, properties on contacts for each row
      when (old.email is distinct from new.email or old.properties is distinct from new.properties)
      execute function contacts_outbound();
    create trigger contacts_outbound_delete after delete on contacts for each row execute function contacts_outbound();

    create function journey_states_outbound() returns trigger language plpgsql as $$
    declare
      data jsonb := jsonb_build_object(
        'journeyStateId', new.id, 'journeyId', new.journey_id, 'userId', new.user_id, 'userEmail', new.user_email,
        'status', new.status, 'currentNodeId', new.current_node_id, 'entryCount', new.entry_count
      );
    begin
      if tg_op = 'INSERT' or old.entry_count is distinct from new.entry_count then
        perform waymark_record_outbound('journey.enrolled', data);
      elsif new.status in ('completed', 'exited', 'failed') and old.status is distinct from new.status then
        perform waymark_record_outbound('journey.' || new.status, data || jsonb_build_object('error', new.error_message));
      end if;
      return null;
    end;
    $$;
    create trigger journey_states_outbound_insert after insert on journey_states for each row execute function journey_states_outbound();
    create trigger journey_states_outbound_update after update on journey_states for each row
      when (old.status is distinct from new.status or old.entry_count is distinct from new.entry_count)
      execute function journey_states_outbound();

    -- each milestone once: the timestamps are set only when empty (first open, first click)
    create function email_sends_outbound() returns trigger language plpgsql as $$
    declare
      data jsonb := jsonb_build_object(
        'emailId', new.id, 'userId', new.user_id, 'to', new.to_email, 'templateKey', new.template_key, 'category', new.category,
        'journeyStateId', new.journey_state_id, 'providerMessageId', new.provider_message_id
      );
      was_sent boolean := tg_op = 'UPDATE' and old.sent_at is not null;
      was_delivered boolean := tg_op = 'UPDATE' and old.delivered_at is not null;
      was_opened boolean := tg_op = 'UPDATE' and old.opened_at is not null;
      was_clicked boolean := tg_op = 'UPDATE' and old.clicked_at is not null;
      was_bounced boolean := tg_op = 'UPDATE' and old.bounced_at is not null;
      was_complained boolean := tg_op = 'UPDATE' and old.complained_at is not null;
      was_failed boolean := tg_op = 'UPDATE' and old.status = 'failed';
    begin
      if new.sent_at is not null and not was_sent then perform waymark_record_outbound('email.sent', data); end if;
      if new.delivered_at is not null and not was_delivered then perform waymark_record_outbound('email.delivered', data); end if;
      if new.opened_at is not null and not was_opened then perform waymark_record_outbound('email.opened', data); end if;
      if new.clicked_at is not null and not was_clicked then perform waymark_record_outbound('email.clicked', data); end if;
      if new.bounced_at is not null and not was_bounced then perform waymark_record_outbound('email.bounced', data); end if;
      if new.complained_at is not null and not was_complained then perform waymark_record_outbound('email.complained', data); end if;
      if new.status = 'failed' and not was_failed then
        perform waymark_record_outbound('email.failed', data || jsonb_build_object('error', new.error_message));
      end if;
      return null;
    end;
    $$;
    create trigger email_sends_outbound_insert after insert on email_sends for each row execute function email_sends_outbound();
    create trigger email_sends_outbound_update after update on email_sends for each row
      when (
        (old.sent_at is null and new.sent_at is not null) or (old.delivered_at is null and new.delivered_at is not null)
        or (old.opened_at is null and new.opened_at is not null) or (old.clicked_at is null and new.clicked_at is not null)
        or (old.bounced_at is null and new.bounced_at is not null) or (old.complained_at is null and new.complained_at is not null)
        or (old.status is distinct from new.status and new.status = 'failed')
      )
      execute function email_sends_outbound();

    create function email_preferences_outbound() returns trigger language plpgsql as $$
    declare
      category text;
    begin
      if coalesce(current_setting('waymark.outbound_quiet', true), '') = 'on' then
        return null;
      end if;
      if new.suppressed and (tg_op = 'INSERT' or not old.suppressed) then
        perform waymark_record_outbound('contact.suppressed', jsonb_build_object('userId', new.user_id, 'email', new.email, 'reason', new.suppression_reason));
      end if;
      if tg_op = 'UPDATE' then
        if old.unsubscribed_all and not new.unsubscribed_all then
          perform waymark_record_outbound('contact.resubscribed', jsonb_build_object('userId', new.user_id, 'email', new.email));
        end if;
        for category in
          select key from jsonb_each_text(new.categories) where value = 'true' and old.categories ->> key = 'false'
        loop
          perform waymark_record_outbound('contact.resubscribed', jsonb_build_object('userId', new.user_id, 'email', new.email, 'category', category));
        end loop;
      end if;
      return null;
    end;
    $$;
    create trigger email_preferences_outbound_insert after insert on email_preferences for each row
      when (new.suppressed) execute function email_preferences_outbound();
    create trigger email_preferences_outbound_update after update on email_preferences for each row
      when (old.suppressed is distinct from new.suppressed or old.unsubscribed_all is distinct from new.unsubscribed_all or old.categories is distinct from new.categories)
      execute function email_preferences_outbound();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger if exists email_preferences_outbound_update on email_preferences;
    drop trigger if exists email_preferences_outbound_insert on email_preferences;
    drop function if exists email_preferences_outbound();
    drop trigger if exists email_sends_outbound_update on email_sends;
    drop trigger if exists email_sends_outbound_insert on email_sends;
    drop function if exists email_sends_outbound();
    drop trigger if exists journey_states_outbound_update on journey_states;
    drop trigger if exists journey_states_outbound_insert on journey_states;
    drop function if exists journey_states_outbound();
    drop trigger if exists contacts_outbound_delete on contacts;
    drop trigger if exists contacts_outbound_update on contacts;
    drop trigger if exists contacts_outbound_insert on contacts;
    drop function if exists contacts_outbound();
    drop function if exists waymark_record_outbound(text, jsonb);
  `.execute(db);
}
