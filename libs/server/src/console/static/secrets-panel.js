import { refusal } from './api.js';
import { h, idFor, panel, renderKeyed, showError } from './dom.js';

/** How long a revealed value stays on screen, in ms. */
const REVEAL_MS = 30_000;
const MASK = '••••••••';

/**
 * The secrets of one service: names, types and versions. Values are not in
 * the page: one is fetched only when its "Reveal" button is pressed, shown in
 * that one place, and removed again by "Hide", after 30 s, or by the next
 * update of the list. Nothing else in the page keeps it.
 * @param {{ api: import('./api.js').ConsoleApi, slug: string, refresh: () => Promise<void> }} ctx
 */
export function createSecretsPanel(ctx) {
  let secrets = {};
  const list = h('ul', { class: 'rows', id: 'secret-list' });
  const empty = h('p', { class: 'empty', text: 'No secrets yet. Add one below.' });

  function row(key) {
    const secret = secrets[key];
    const li = h('li', { class: 'row secret' });
    const error = h('p', { class: 'alert', role: 'alert', id: idFor('secret-error', key), hidden: true });
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
    const current = secret.versions[secret.versions.length - 1].version;
    const versions = h(
      'ul',
      { class: 'versions' },
      ...secret.versions.map(({ version, created_at }) =>
        versionItem(key, version, created_at, version === current, run, error),
      ),
    );

    const valueId = idFor('secret-new-value', key);
    const valueInput = h('input', {
      id: valueId,
      type: 'password',
      autocomplete: 'off',
      required: true,
      oninput: () => (li.dataset.editing = valueInput.value === '' ? 'false' : 'true'),
    });
    const setVersion = h(
      'form',
      {
        class: 'inline-form',
        onsubmit: (event) => {
          event.preventDefault();
          const value = valueInput.value;
          valueInput.value = ''; // the page keeps no value longer than the request
          return run(() => ctx.api.admin('PUT', ['services', ctx.slug, 'secrets', key], { value, type: secret.type }));
        },
      },
      h('label', { for: valueId, text: 'New version' }),
      valueInput,
      h('button', { type: 'submit', text: 'Set new version' }),
    );

    li.append(
      h(
        'div',
        { class: 'row-head' },
        h('code', { class: 'key', text: key }),
        h('span', { class: 'badge', text: secret.type }),
        h('button', {
          type: 'button',
          class: 'danger',
          id: idFor('secret-delete', key),
          text: 'Delete all versions',
          onclick: () => {
            if (window.confirm(`Delete every version of secret "${key}"?`)) {
              return run(() => ctx.api.admin('DELETE', ['services', ctx.slug, 'secrets', key]));
            }
          },
        }),
      ),
      versions,
      setVersion,
      error,
    );
    return li;
  }

  function versionItem(key, version, createdAt, isCurrent, run) {
    const valueId = idFor(`secret-value-${version}`, key);
    const shown = h('code', { class: 'masked', id: valueId, 'aria-live': 'polite', text: MASK });
    let hideTimer;
    const hide = () => {
      clearTimeout(hideTimer);
      shown.textContent = MASK;
      shown.className = 'masked';
      reveal.textContent = 'Reveal';
      reveal.setAttribute('aria-pressed', 'false');
    };
    const reveal = h('button', {
      type: 'button',
      id: idFor(`secret-reveal-${version}`, key),
      'aria-controls': valueId,
      'aria-pressed': 'false',
      text: 'Reveal',
      onclick: async () => {
        if (reveal.getAttribute('aria-pressed') === 'true') return hide();
        try {
          shown.textContent = await ctx.api.reveal(ctx.slug, key, version);
          shown.className = 'revealed';
          reveal.textContent = 'Hide';
          reveal.setAttribute('aria-pressed', 'true');
          hideTimer = setTimeout(hide, REVEAL_MS);
        } catch (e) {
          shown.textContent = refusal(e);
        }
      },
    });
    return h(
      'li',
      {},
      h('span', { class: 'version', text: `v${version}` }),
      isCurrent ? h('span', { class: 'badge on', text: 'served' }) : null,
      h('span', { class: 'created', text: `created ${new Date(createdAt).toLocaleString()}` }),
      shown,
      reveal,
      h('button', {
        type: 'button',
        class: 'danger',
        text: 'Delete version',
        'aria-label': `Delete version ${version} of ${key}`,
        onclick: () => {
          if (window.confirm(`Delete version ${version} of secret "${key}"?`)) {
            return run(() => ctx.api.admin('DELETE', ['services', ctx.slug, 'secrets', key, 'versions', version]));
          }
        },
      }),
    );
  }

  const keyInput = h('input', { id: 'new-secret-key', name: 'key', required: true, autocomplete: 'off' });
  const valueInput = h('input', { id: 'new-secret-value', type: 'password', autocomplete: 'off', required: true });
  const typeInput = h(
    'select',
    { id: 'new-secret-type' },
    h('option', { value: 'text', text: 'text' }),
    h('option', { value: 'file', text: 'file' }),
  );
  const addError = h('p', { class: 'alert', role: 'alert', id: 'new-secret-error', hidden: true });
  const form = h(
    'form',
    {
      class: 'add',
      onsubmit: async (event) => {
        event.preventDefault();
        const value = valueInput.value;
        valueInput.value = '';
        try {
          await ctx.api.admin('PUT', ['services', ctx.slug, 'secrets', keyInput.value.trim()], {
            value,
            type: typeInput.value,
          });
          showError(addError, '');
          form.reset();
          await ctx.refresh();
        } catch (e) {
          showError(addError, refusal(e));
        }
      },
    },
    h('h4', { text: 'Add a secret' }),
    h('label', { for: 'new-secret-key', text: 'Key' }),
    keyInput,
    h('label', { for: 'new-secret-type', text: 'Type' }),
    typeInput,
    h('label', { for: 'new-secret-value', text: 'Value' }),
    valueInput,
    addError,
    h('button', { type: 'submit', text: 'Add secret' }),
  );

  return {
    element: panel('secrets', 'Secrets', empty, list, form),
    /** @param {{ secrets: Record<string, { type: string, versions: Array<{ version: number, created_at: string }> }> }} view */
    update(view) {
      secrets = view.secrets;
      renderKeyed(list, empty, secrets, row);
    },
  };
}
