import { Plus, Trash2 } from 'lucide-react';
import { createContext, useContext, useState, type ReactNode } from 'react';
import { Options } from '../../components/options';
import {
  additions,
  kindOf,
  operators,
  parseWithin,
  valueOf,
  valueText,
  withinUnits,
  type Addition,
  type Condition,
  type EmailLeaf,
  type EventLeaf,
  type LeafOf,
  type PropertyLeaf,
} from './conditions';

/** The installation's list keys and template keys, offered by the list and email leaves. */
export interface BuilderChoices {
  lists: string[];
  templates: string[];
}
const Choices = createContext<BuilderChoices>({ lists: [], templates: [] });

interface NodeProps<C> {
  value: C;
  onChange(value: Condition): void;
  /** absent on the root and on the only child of a "not" */
  onRemove?: (() => void) | undefined;
  /** the node's place in the tree, as the API names it in a 400 (`conditions.all[1]`) */
  path: string;
}

function RemoveButton({ onRemove, what }: { onRemove: (() => void) | undefined; what: string }) {
  if (onRemove === undefined) return null;
  return (
    <button type="button" className="condition-remove" onClick={onRemove} aria-label={`Remove ${what}`}>
      <Trash2 size={14} aria-hidden /> Remove
    </button>
  );
}

/** One leaf or group, framed with its name; `path` is on the frame so a person can match a 400 to it. */
function Frame({ legend, path, onRemove, children }: { legend: string; path: string; onRemove: (() => void) | undefined; children: ReactNode }) {
  return (
    <fieldset className="condition" data-path={path}>
      <legend>{legend}</legend>
      <div className="row condition-fields">
        {children}
        <RemoveButton onRemove={onRemove} what={legend.toLowerCase()} />
      </div>
    </fieldset>
  );
}

function Within({ within, onChange }: { within: string; onChange(within: string): void }) {
  const { amount, unit } = parseWithin(within);
  return (
    <>
      <label className="field">
        Within the last
        <input type="number" min={1} step={1} required value={amount} onChange={(event) => onChange(`${event.target.value}${unit}`)} style={{ width: 90 }} />
      </label>
      <label className="field">
        Unit
        <select value={unit} onChange={(event) => onChange(`${amount}${event.target.value}`)}>
          <Options items={withinUnits.map((option) => [option.value, option.label] as const)} />
        </select>
      </label>
    </>
  );
}

/** Property, operator and value: a property leaf of the tree, and each `where` of an event leaf. */
function PropertyFields({ value, onChange, nameLabel }: { value: PropertyLeaf; onChange(value: PropertyLeaf): void; nameLabel: string }) {
  // the typed text, so "pro, " keeps its comma while the next value is typed
  const [typed, setText] = useState(() => valueText(value));
  // a change from elsewhere (the JSON, a removed sibling) shows the tree's value, not stale typing
  const text = JSON.stringify(valueOf(value.operator, typed)) === JSON.stringify(value.value) ? typed : valueText(value);
  const setValue = (nextText: string, operator = value.operator) => {
    setText(nextText);
    const { value: _dropped, ...rest } = value;
    onChange({ ...rest, operator, ...(operator === 'exists' && nextText === '' ? {} : { value: valueOf(operator, nextText) }) });
  };
  return (
    <>
      <label className="field">
        {nameLabel}
        <input value={value.property} placeholder="plan" onChange={(event) => onChange({ ...value, property: event.target.value })} />
      </label>
      <label className="field">
        Operator
        <select
          value={value.operator}
          onChange={(event) => {
            const operator = event.target.value as PropertyLeaf['operator'];
            setValue(operator === 'exists' ? 'true' : text, operator);
          }}
        >
          <Options items={operators.map((option) => [option.value, option.label] as const)} />
        </select>
      </label>
      {value.operator === 'exists' ? (
        <label className="field">
          Present
          <select value={value.value === false ? 'false' : 'true'} onChange={(event) => setValue(event.target.value)}>
            <option value="true">yes</option>
            <option value="false">no (missing or null)</option>
          </select>
        </label>
      ) : (
        <label className="field">
          {value.operator === 'in' ? 'Values (comma-separated)' : 'Value'}
          <input value={text} placeholder={value.operator === 'in' ? 'pro, team' : 'pro'} onChange={(event) => setValue(event.target.value)} />
        </label>
      )}
    </>
  );
}

function PropertyNode({ value, onChange, onRemove, path }: NodeProps<PropertyLeaf>) {
  return (
    <Frame legend={additions.property.label} path={path} onRemove={onRemove}>
      <PropertyFields value={value} onChange={onChange} nameLabel="Property" />
    </Frame>
  );
}

function ListNode({ value, onChange, onRemove, path }: NodeProps<LeafOf<'list'>>) {
  const { lists } = useContext(Choices);
  // a key typed into the JSON that no list has stays choosable, so the API's 400 can name it
  const keys = value.list === '' || lists.includes(value.list) ? lists : [value.list, ...lists];
  return (
    <Frame legend={additions.list.label} path={path} onRemove={onRemove}>
      <label className="field">
        List
        <select value={value.list} onChange={(event) => onChange({ ...value, list: event.target.value })}>
          <option value="">Choose a list…</option>
          <Options items={keys} />
        </select>
      </label>
    </Frame>
  );
}

function EventNode({ value, onChange, onRemove, path }: NodeProps<EventLeaf>) {
  const where = value.where ?? [];
  const setWhere = (next: PropertyLeaf[]) => {
    const { where: _dropped, ...rest } = value;
    onChange(next.length === 0 ? rest : { ...rest, where: next });
  };
  return (
    <fieldset className="condition" data-path={path}>
      <legend>{additions.event.label}</legend>
      <div className="row condition-fields">
        <label className="field">
          Event
          <input value={value.event} placeholder="report.exported" onChange={(event) => onChange({ ...value, event: event.target.value })} />
        </label>
        <label className="field">
          At least (times)
          <input
            type="number"
            min={1}
            step={1}
            value={value.minCount ?? 1}
            style={{ width: 90 }}
            onChange={(event) => {
              const { minCount: _dropped, ...rest } = value;
              const count = Number(event.target.value);
              onChange(event.target.value === '' || count === 1 ? rest : { ...rest, minCount: count });
            }}
          />
        </label>
        <Within within={value.within} onChange={(within) => onChange({ ...value, within })} />
        <RemoveButton onRemove={onRemove} what="event condition" />
      </div>
      {where.map((leaf, index) => (
        <div className="row condition-fields condition-where" key={index} data-path={`${path}.where[${index}]`}>
          <PropertyFields value={leaf} nameLabel="Where event property" onChange={(next) => setWhere(where.map((old, at) => (at === index ? next : old)))} />
          <button type="button" aria-label={`Remove where ${index + 1}`} onClick={() => setWhere(where.filter((_, at) => at !== index))}>
            <Trash2 size={14} aria-hidden /> Remove
          </button>
        </div>
      ))}
      <div className="row">
        <button type="button" onClick={() => setWhere([...where, { type: 'property', property: '', operator: 'eq', value: '' }])}>
          <Plus size={14} aria-hidden /> Where…
        </button>
      </div>
    </fieldset>
  );
}

function EmailNode({ value, onChange, onRemove, path }: NodeProps<EmailLeaf>) {
  const { templates } = useContext(Choices);
  return (
    <Frame legend={additions.email.label} path={path} onRemove={onRemove}>
      <label className="field">
        Action
        <select value={value.action} onChange={(event) => onChange({ ...value, action: event.target.value as EmailLeaf['action'] })}>
          <option value="opened">opened</option>
          <option value="clicked">clicked</option>
        </select>
      </label>
      <label className="field">
        Template
        <select
          value={value.templateKey ?? ''}
          onChange={(event) => {
            const { templateKey: _dropped, ...rest } = value;
            onChange(event.target.value === '' ? rest : { ...rest, templateKey: event.target.value });
          }}
        >
          <option value="">any email</option>
          <Options items={templates} />
        </select>
      </label>
      <Within within={value.within} onChange={(within) => onChange({ ...value, within })} />
    </Frame>
  );
}

function LastSeenNode({ value, onChange, onRemove, path }: NodeProps<LeafOf<'lastSeen'>>) {
  return (
    <Frame legend={additions.lastSeen.label} path={path} onRemove={onRemove}>
      <Within within={value.within} onChange={(within) => onChange({ ...value, within })} />
    </Frame>
  );
}

function AddCondition({ onAdd, label }: { onAdd(condition: Condition): void; label: string }) {
  const [choice, setChoice] = useState<Addition>('property');
  return (
    <div className="row">
      <label className="field">
        {label}
        <select value={choice} onChange={(event) => setChoice(event.target.value as Addition)}>
          <Options items={Object.entries(additions).map(([key, { label }]) => [key, label] as const)} />
        </select>
      </label>
      <button type="button" onClick={() => onAdd(additions[choice].blank())}>
        <Plus size={14} aria-hidden /> Add
      </button>
    </div>
  );
}

function GroupNode({ value, onChange, onRemove, path }: NodeProps<{ all: Condition[] } | { any: Condition[] }>) {
  const mode = 'all' in value ? 'all' : 'any';
  const children = 'all' in value ? value.all : value.any;
  const set = (next: Condition[], nextMode = mode) => onChange(nextMode === 'all' ? { all: next } : { any: next });
  const legend = mode === 'all' ? 'All of these' : 'Any of these';
  return (
    <fieldset className="condition condition-group" data-path={path}>
      <legend>{legend}</legend>
      <div className="row">
        <label className="field">
          Match
          <select value={mode} onChange={(event) => set(children, event.target.value as 'all' | 'any')}>
            <option value="all">all of these (and)</option>
            <option value="any">any of these (or)</option>
          </select>
        </label>
        <RemoveButton onRemove={onRemove} what={legend.toLowerCase()} />
      </div>
      {children.length === 0 ? (
        <p className="muted">{mode === 'all' ? 'No conditions yet: everyone matches.' : 'No conditions yet: nobody matches.'}</p>
      ) : (
        children.map((child, index) => (
          <ConditionNode
            key={index}
            value={child}
            path={`${path}.${mode}[${index}]`}
            onChange={(next) => set(children.map((old, at) => (at === index ? next : old)))}
            onRemove={() => set(children.filter((_, at) => at !== index))}
          />
        ))
      )}
      <AddCondition label={`Add to ${mode === 'all' ? '“all of these”' : '“any of these”'}`} onAdd={(condition) => set([...children, condition])} />
    </fieldset>
  );
}

function NotNode({ value, onChange, onRemove, path }: NodeProps<{ not: Condition }>) {
  return (
    <fieldset className="condition condition-group" data-path={path}>
      <legend>Not: none of this holds</legend>
      <div className="row">
        <RemoveButton onRemove={onRemove} what="not group" />
      </div>
      <ConditionNode value={value.not} path={`${path}.not`} onChange={(not) => onChange({ not })} />
    </fieldset>
  );
}

/** One node of the tree with the editor of its kind. */
function ConditionNode(props: NodeProps<Condition>) {
  const { value } = props;
  switch (kindOf(value)) {
    case 'all':
    case 'any':
      return <GroupNode {...props} value={value as { all: Condition[] }} />;
    case 'not':
      return <NotNode {...props} value={value as { not: Condition }} />;
    case 'property':
      return <PropertyNode {...props} value={value as PropertyLeaf} />;
    case 'list':
      return <ListNode {...props} value={value as LeafOf<'list'>} />;
    case 'event':
      return <EventNode {...props} value={value as EventLeaf} />;
    case 'email':
      return <EmailNode {...props} value={value as EmailLeaf} />;
    case 'lastSeen':
      return <LastSeenNode {...props} value={value as LeafOf<'lastSeen'>} />;
    case 'unknown':
      return (
        <Frame legend="Unknown condition" path={props.path} onRemove={props.onRemove}>
          <p className="muted">The builder does not know this shape; edit it in the JSON.</p>
        </Frame>
      );
  }
}

/** The condition tree as nested forms: every leaf type and the all/any/not groups. */
export function ConditionBuilder({ value, onChange, choices }: { value: Condition; onChange(value: Condition): void; choices: BuilderChoices }) {
  return (
    <Choices.Provider value={choices}>
      <ConditionNode value={value} onChange={onChange} path="conditions" />
    </Choices.Provider>
  );
}
