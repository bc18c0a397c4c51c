import { refusal } from './api.js';
import { h, idFor, panel, renderKeyed, showError } from './dom.js';
import { describeInstant, fromLocalInput, toLocalInput } from './time-input.js';

/**
 * The flags of one service: a switch for `is_enabled`, the schedule, and
 * `is_active` exactly as the server computes and serves it.
 * @param {{ api: import('./api.js').ConsoleApi, slug: string, refresh: () => Promise<void>, report: (m: string) => void }} ctx
 */
export function createFlagsPanel(ctx) {
  let flags = {};
  const list = h('ul', { class: 'rows', id: 'flag-list' });
  const empty = h('p', { class: 'empty', text: 'No flags yet. Add one below.' });

  /** PUT replaces the whole flag: send back what we are not changing. */
  const put = (key, flag, change) =>
    ctx.api.admin('PUT', ['services', ctx.slug, 'flags', key], {
      is_enabled: flag.is_enabled,
      starts_at: flag.starts_at,
      ends_at: flag.ends_at,
      ...(flag.ab ? { ab: flag.ab } : {}),
      ...change,
    });

  function row(key) {
    const flag = flags[key];
    const li = h('li', { class: 'row flag' });
    const error = h('p', { class: 'alert', role: 'alert', id: idFor('flag-error', key), hidden: true });
    const run = async (action) => {
      try {
        await action();
        showError(error, '');
        li.dataset.editing = 'false';
        await ctx.refresh();
      } catch (e) {
        showError(error, refusal(e));
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
      onclick: () => run(() => put(key, flag, { is_enabled: !flag.is_enabled })),
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
    const markEditing = () => (li.dataset.editing = 'true');
    const starts = h('input', {
      type: 'datetime-local',
      step: 1,
      id: startsId,
      value: toLocalInput(flag.starts_at),
      oninput: markEditing,
    });
    const ends = h('input', {
      type: 'datetime-local',
      step: 1,
      id: endsId,
      value: toLocalInput(flag.ends_at),
      oninput: markEditing,
    });
    const schedule = h(
      'form',
      {
        class: 'schedule',
        onsubmit: (event) => {
          event.preventDefault();
          return run(() =>
            put(key, flag, { starts_at: fromLocalInput(starts.value), ends_at: fromLocalInput(ends.value) }),
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
            text: 'Clear schedule',
            onclick: () => run(() => put(key, flag, { starts_at: null, ends_at: null })),
          })
        : null,
    );
    const when = [
      flag.starts_at ? `from ${describeInstant(flag.starts_at)}` : '',
      flag.ends_at ? `until ${describeInstant(flag.ends_at)}` : '',
    ]
      .filter(Boolean)
      .join(', ');

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
          onclick: () => {
            if (window.confirm(`Delete flag "${key}"?`)) {
              return run(() => ctx.api.admin('DELETE', ['services', ctx.slug, 'flags', key]));
            }
          },
        }),
      ),
      h('p', { class: 'detail', text: `${when ? `Scheduled ${when}. ` : 'No schedule. '}${describeAb(flag.ab)}` }),
      schedule,
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

function describeAb(ab) {
  if (!ab) return 'No A/B rule.';
  const cohorts = ab.cohorts.length === 1 ? '1 cohort' : `${ab.cohorts.length} cohorts`;
  return `A/B: ${ab.percentage} % of users (salt "${ab.salt}", ${cohorts}).`;
}
