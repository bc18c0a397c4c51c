import { abRuleForm, describeAb } from './ab-editor.js';
import { refusal } from './api.js';
import { h, idFor, panel, renderKeyed, showError } from './dom.js';
import { describeInstant, fromLocalInput, toLocalInput } from './time-input.js';

/**
 * The flags of one service: a switch for `is_enabled`, the schedule, the A/B
 * rule (added, edited and removed in a form), and `is_active` exactly as the
 * server computes and serves it. Every change to an existing flag is a PATCH
 * naming only what changes, so a switch never touches the schedule or the
 * rule, whatever an older copy of the page holds.
 * @param {{ api: import('./api.js').ConsoleApi, slug: string, refresh: () => Promise<void>, report: (m: string) => void }} ctx
 */
export function createFlagsPanel(ctx) {
  let flags = {};
  const list = h('ul', { class: 'rows', id: 'flag-list' });
  const empty = h('p', { class: 'empty', text: 'No flags yet. Add one below.' });

  /** PATCH changes only the members named (PROTOCOL §10). */
  const patch = (key, change) => ctx.api.admin('PATCH', ['services', ctx.slug, 'flags', key], change);

  function row(key) {
    const flag = flags[key];
    const li = h('li', { class: 'row flag' });
    const error = h('p', { class: 'alert', role: 'alert', id: idFor('flag-error', key), hidden: true });
    /** Runs a change; on success the row is rebuilt from the server's answer, on refusal `shown` says why. */
    const run = async (action, shown = error) => {
      try {
        await action();
        showError(shown, '');
        li.dataset.editing = 'false';
        await ctx.refresh();
      } catch (e) {
        showError(shown, refusal(e));
      }
    };

    const toggle = h('button', {
      type: 'button',
      role: 'switch',
      class: 'switch',
      id: idFor('flag-toggle', key),
      'aria-checked': String(flag.is_enabled),
      'aria-label': `${key} enabled`,
      text: flag.is_enabled ? 'Enabled' : 'Disabled',
      // The flag as last shown: the row may have been kept while its forms were open.
      onclick: () => run(() => patch(key, { is_enabled: !(flags[key] ?? flag).is_enabled })),
    });
    const scheduled = flag.is_enabled && !flag.is_active;
    const active = h('span', {
      class: `badge ${flag.is_active ? 'on' : 'off'}`,
      id: idFor('flag-active', key),
      title: 'is_active, as the server serves it to clients',
      text: flag.is_active ? 'active' : scheduled ? 'inactive (outside its schedule)' : 'inactive',
    });

    const startsId = idFor('flag-starts', key);
    const endsId = idFor('flag-ends', key);
    const starts = h('input', {
      type: 'datetime-local',
      step: 1,
      id: startsId,
      value: toLocalInput(flag.starts_at),
    });
    const ends = h('input', {
      type: 'datetime-local',
      step: 1,
      id: endsId,
      value: toLocalInput(flag.ends_at),
    });
    const scheduleForm = h(
      'form',
      {
        class: 'schedule',
        onsubmit: (event) => {
          event.preventDefault();
          return run(() =>
            patch(key, { starts_at: fromLocalInput(starts.value), ends_at: fromLocalInput(ends.value) }),
          );
        },
      },
      h('label', { for: startsId, text: 'Starts' }),
      starts,
      h('label', { for: endsId, text: 'Ends' }),
      ends,
      h('button', { type: 'submit', id: idFor('flag-schedule-save', key), text: 'Save schedule' }),
      flag.starts_at || flag.ends_at
        ? h('button', {
            type: 'button',
            class: 'quiet',
            id: idFor('flag-schedule-clear', key),
            text: 'Clear schedule',
            onclick: () => run(() => patch(key, { starts_at: null, ends_at: null })),
          })
        : null,
    );
    const when = [
      flag.starts_at ? `from ${describeInstant(flag.starts_at)}` : '',
      flag.ends_at ? `until ${describeInstant(flag.ends_at)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const schedule = h(
      'details',
      {
        class: 'disclosure',
        id: idFor('flag-schedule', key),
        // Open, the row is being worked in: live updates leave it as it is.
        ontoggle: () => (li.dataset.editing = String(schedule.open || ab.open)),
      },
      h('summary', { text: flag.starts_at || flag.ends_at ? 'Edit the schedule' : 'Add a schedule' }),
      scheduleForm,
    );

    const abError = h('p', { class: 'alert', role: 'alert', id: idFor('flag-ab-error', key), hidden: true });
    const ab = h(
      'details',
      {
        class: 'disclosure',
        id: idFor('flag-ab', key),
        ontoggle: () => (li.dataset.editing = String(schedule.open || ab.open)),
      },
      h('summary', { text: flag.ab ? 'Edit the A/B rule' : 'Add an A/B rule' }),
      abRuleForm({
        id: idFor('flag-ab-form', key),
        key,
        rule: flag.ab,
        operators: ctx.api.abOperators,
        error: abError,
        onSave: (rule) => run(() => patch(key, { ab: rule }), abError),
        onRemove: () => {
          if (window.confirm(`Remove the A/B rule of flag "${key}"? Every user then gets is_active.`)) {
            return run(() => patch(key, { ab: null }), abError);
          }
        },
        onCancel: () => {
          ab.open = false;
          void ctx.refresh();
        },
      }),
    );

    li.append(
      h(
        'div',
        { class: 'row-head' },
        h('code', { class: 'key', text: key }),
        toggle,
        active,
        h('button', {
          type: 'button',
          class: 'danger',
          text: 'Delete',
          'aria-label': `Delete flag ${key}`,
          onclick: () => {
            if (window.confirm(`Delete flag "${key}"?`)) {
              return run(() => ctx.api.admin('DELETE', ['services', ctx.slug, 'flags', key]));
            }
          },
        }),
      ),
      h('p', {
        class: 'detail',
        id: idFor('flag-schedule-state', key),
        text: when ? `Scheduled ${when}.` : 'No schedule: on whenever enabled.',
      }),
      schedule,
      h('p', { class: 'detail', id: idFor('flag-ab-state', key), text: describeAb(flag.ab) }),
      ab,
      error,
    );
    return li;
  }

  const keyInput = h('input', { id: 'new-flag-key', name: 'key', required: true, autocomplete: 'off' });
  const enabledInput = h('input', { id: 'new-flag-enabled', name: 'enabled', type: 'checkbox', checked: true });
  const addError = h('p', { class: 'alert', role: 'alert', id: 'new-flag-error', hidden: true });
  const form = h(
    'form',
    {
      class: 'add',
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          // A new flag is a PUT: it creates the whole flag (no schedule, no rule; add them on its row).
          await ctx.api.admin('PUT', ['services', ctx.slug, 'flags', keyInput.value.trim()], {
            is_enabled: enabledInput.checked,
            starts_at: null,
            ends_at: null,
          });
          showError(addError, '');
          form.reset();
          await ctx.refresh();
        } catch (e) {
          showError(addError, refusal(e));
        }
      },
    },
    h('h4', { text: 'Add a flag' }),
    h('label', { for: 'new-flag-key', text: 'Key' }),
    keyInput,
    h('label', { class: 'inline', for: 'new-flag-enabled' }, enabledInput, ' enabled'),
    addError,
    h('button', { type: 'submit', text: 'Add flag' }),
  );

  return {
    element: panel('flags', 'Flags', empty, list, form),
    /** @param {{ flags: Record<string, object> }} view */
    update(view) {
      flags = view.flags;
      renderKeyed(list, empty, flags, row);
    },
  };
}
