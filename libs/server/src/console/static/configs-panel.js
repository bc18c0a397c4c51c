import { refusal } from './api.js';
import { h, idFor, panel, renderKeyed, showError } from './dom.js';
import { parseJsonInput } from './json-input.js';

/**
 * The configs of one service: each value as JSON, edited in place.
 * @param {{ api: import('./api.js').ConsoleApi, slug: string, refresh: () => Promise<void> }} ctx
 */
export function createConfigsPanel(ctx) {
  let configs = {};
  const list = h('ul', { class: 'rows', id: 'config-list' });
  const empty = h('p', { class: 'empty', text: 'No configs yet. Add one below.' });

  function row(key) {
    const li = h('li', { class: 'row config' });
    const value = configs[key];
    const view = () => {
      li.dataset.editing = 'false';
      li.replaceChildren(
        h('code', { class: 'key', text: key }),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', id: idFor('config-edit', key), onclick: edit, text: 'Edit' }),
          h('button', { type: 'button', class: 'danger', onclick: remove, text: 'Delete' }),
        ),
        h('code', { class: 'value', id: idFor('config-value', key), text: JSON.stringify(value) }),
      );
    };
    const edit = () => {
      li.dataset.editing = 'true';
      const editorId = idFor('config-editor', key);
      const textarea = h('textarea', {
        id: editorId,
        rows: 3,
        spellcheck: 'false',
        value: JSON.stringify(value, null, 2),
        onkeydown: (event) => {
          if (event.key === 'Escape') view();
        },
      });
      const error = h('p', { class: 'alert', role: 'alert', id: idFor('config-error', key), hidden: true });
      const save = async (event) => {
        event.preventDefault();
        const parsed = parseJsonInput(textarea.value);
        if (!parsed.ok) return showError(error, parsed.message);
        try {
          await ctx.api.admin('PUT', ['services', ctx.slug, 'configs', key], { value: parsed.value });
          li.dataset.editing = 'false';
          await ctx.refresh();
        } catch (e) {
          showError(error, refusal(e));
        }
      };
      li.replaceChildren(
        h(
          'form',
          { class: 'editor', onsubmit: save },
          h('label', { for: editorId }, 'Value of ', h('code', { text: key }), ' (JSON)'),
          textarea,
          error,
          h(
            'div',
            { class: 'actions' },
            h('button', { type: 'submit', text: 'Save' }),
            h('button', { type: 'button', class: 'quiet', onclick: view, text: 'Cancel' }),
          ),
        ),
      );
      textarea.focus();
    };
    const remove = async () => {
      if (!window.confirm(`Delete config "${key}"?`)) return;
      try {
        await ctx.api.admin('DELETE', ['services', ctx.slug, 'configs', key]);
        await ctx.refresh();
      } catch (e) {
        ctx.report(refusal(e));
      }
    };
    view();
    return li;
  }

  const keyInput = h('input', { id: 'new-config-key', name: 'key', required: true, autocomplete: 'off' });
  const valueInput = h('textarea', {
    id: 'new-config-value',
    name: 'value',
    rows: 2,
    spellcheck: 'false',
    placeholder: '"text", 42, true, [1, 2] or null',
  });
  const addError = h('p', { class: 'alert', role: 'alert', id: 'new-config-error', hidden: true });
  const form = h(
    'form',
    {
      class: 'add',
      onsubmit: async (event) => {
        event.preventDefault();
        const parsed = parseJsonInput(valueInput.value);
        if (!parsed.ok) return showError(addError, parsed.message);
        try {
          await ctx.api.admin('PUT', ['services', ctx.slug, 'configs', keyInput.value.trim()], { value: parsed.value });
          showError(addError, '');
          form.reset();
          await ctx.refresh();
        } catch (e) {
          showError(addError, refusal(e));
        }
      },
    },
    h('h4', { text: 'Add or replace a config' }),
    h('label', { for: 'new-config-key', text: 'Key' }),
    keyInput,
    h('label', { for: 'new-config-value', text: 'Value (JSON)' }),
    valueInput,
    addError,
    h('button', { type: 'submit', text: 'Save config' }),
  );

  const element = panel('configs', 'Configs', empty, list, form);

  return {
    element,
    /** @param {{ configs: Record<string, unknown> }} view */
    update(view) {
      configs = view.configs;
      renderKeyed(list, empty, configs, row);
    },
  };
}
