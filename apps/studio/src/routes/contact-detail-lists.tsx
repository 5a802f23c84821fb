import { useState, type FormEvent } from 'react';
import { Badge, Empty, ErrorPanel, Skeleton } from '../components/feedback';
import { formatDate } from '../components/format';
import { useContactListAddMutation, useContactListRemoveMutation } from '../data/contacts/contact-list-mutations';
import { useContactListsQuery } from '../data/contacts/contact-lists-query';
import { useListsQuery } from '../data/lists/lists-query';
import { Cell, ColumnHeaders, TableRegion } from '../components/table-region';

// what the API accepts for a new list key (PUT /v1/admin/contacts/{id}/lists/{listKey})
const LIST_KEY = /^[\w.:-]{1,200}$/;

/** The contact's list memberships; editors+ add one (a new key creates the list) or remove one. */
export function ContactLists({ contactId, editable }: { contactId: string; editable: boolean }) {
  const [key, setKey] = useState('');
  const memberships = useContactListsQuery(contactId);
  // the known keys, offered while typing
  const known = useListsQuery({ enabled: editable });
  const add = useContactListAddMutation(contactId, { onSuccess: () => setKey('') });
  const remove = useContactListRemoveMutation(contactId);
  const keyProblem = key === '' || LIST_KEY.test(key) ? undefined : 'A list key is letters, digits and _ . : - (at most 200).';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (key !== '' && keyProblem === undefined) add.mutate(key);
  };
  const joined = new Set(memberships.data?.lists.map((list) => list.key));
  return (
    <div className="stack">
      {memberships.isPending ? (
        <Skeleton rows={2} />
      ) : memberships.isError ? (
        <ErrorPanel error={memberships.error} />
      ) : memberships.data.lists.length === 0 ? (
        <Empty>Not on any list.{editable ? ' Add one below, or send a lists field with an event.' : ''}</Empty>
      ) : (
        <TableRegion label="List memberships">
          <ColumnHeaders names={editable ? ['List', 'Membership', 'Remove'] : ['List', 'Membership']} />
          <tbody>
            {memberships.data.lists.map((list) => (
              <tr key={list.key}>
                <Cell label="List">
                  {list.name} {list.name === list.key ? null : <code>{list.key}</code>}
                  <div className="muted">since {formatDate(list.updatedAt)}</div>
                </Cell>
                <Cell label="Membership">
                  <Badge value={list.subscribed ? 'subscribed' : 'opted out'} />
                </Cell>

                {editable ? (
                  <td>
                    <button type="button" disabled={remove.isPending} aria-label={`Remove from ${list.name}`} onClick={() => remove.mutate(list.key)}>
                      Remove
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </TableRegion>
      )}
      {remove.isError ? <ErrorPanel error={remove.error} /> : null}
      {editable ? (
        <form className="row" onSubmit={submit}>
          <label className="field">
            List key
            <input
              value={key}
              onChange={(event) => setKey(event.target.value.trim())}
              list="known-lists"
              aria-invalid={keyProblem !== undefined}
              autoComplete="off"
            />
          </label>
          <datalist id="known-lists">
            {known.data?.lists
              .filter((list) => !joined.has(list.key))
              .map((list) => (
                <option key={list.key} value={list.key}>
                  {list.name}
                </option>
              ))}
          </datalist>
          <button type="submit" className="primary" disabled={key === '' || keyProblem !== undefined || add.isPending}>
            Add to list
          </button>
        </form>
      ) : null}
      {keyProblem === undefined ? null : (
        <p className="muted" role="status">
          {keyProblem}
        </p>
      )}
      {add.isError ? <ErrorPanel error={add.error} /> : null}
    </div>
  );
}
