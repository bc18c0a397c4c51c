import { refusal } from './api.js';
import { h, showError } from './dom.js';

const RIGHTS = ['read', 'write', 'secrets:reveal', 'secrets:write', 'keys', 'admin'];

/**
 * Scoped admin tokens (PROTOCOL §10): the list (never a token), a form that
 * creates one and shows it once, and revocation. Shown to tokens with the
 * `admin` right only.
 * @param {HTMLElement} container
 * @param {{ api: import('./api.js').ConsoleApi }} ctx
 */
export function createTokensPanel(container, ctx) {
  const list = h('ul', { class: 'rows', id: 'token-list' });
  const error = h('p', { class: 'alert', role: 'alert', id: 'token-error', hidden: true });
  const shown = h('p', { class: 'once', id: 'token-once', role: 'status', hidden: true });
  const name = h('input', { id: 'token-name', required: true, autocomplete: 'off', placeholder: 'ci-readonly' });
  const projects = h('input', { id: 'token-projects', autocomplete: 'off', value: '*' });
  const boxes = RIGHTS.map((right) => h('input', { type: 'checkbox', id: `token-right-${right}`, value: right }));

  async function refresh() {
    try {
      const { tokens } = await ctx.api.admin('GET', ['tokens']);
      list.replaceChildren(
        ...tokens.map((t) =>
          h(
            'li',
            { class: 'row' },
            h('code', { class: 'key', text: t.name }),
            h('span', {
              class: 'meta',
              text: `${t.rights.join(', ')} · ${JSON.stringify(t.scope)} · last used ${t.last_used_at ?? 'never'}`,
            }),
            h('button', {
              type: 'button',
              class: 'danger',
              text: 'Revoke',
              onclick: async () => {
                try {
                  await ctx.api.admin('DELETE', ['tokens', t.name]);
                  await refresh();
                } catch (e) {
                  showError(error, refusal(e));
                }
              },
            }),
          ),
        ),
      );
    } catch (e) {
      showError(error, refusal(e));
    }
  }

  const create = async (event) => {
    event.preventDefault();
    const body = {
      name: name.value.trim(),
      scope: {
        projects: projects.value
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
      },
      rights: boxes.filter((b) => b.checked).map((b) => b.value),
    };
    try {
      const created = await ctx.api.admin('POST', ['tokens'], body);
      // Shown once: the server keeps only its hash.
      shown.textContent = `Token ${created.name}: ${created.token} (copy it now: it is not shown again)`;
      shown.hidden = false;
      showError(error, '');
      await refresh();
    } catch (e) {
      showError(error, refusal(e));
    }
  };

  container.replaceChildren(
    h('h2', { id: 'tokens-title', text: 'Admin tokens' }),
    error,
    shown,
    list,
    h(
      'form',
      { class: 'add', onsubmit: create },
      h('label', { for: 'token-name', text: 'Name' }),
      name,
      h('label', { for: 'token-projects', text: 'Projects (comma-separated, * for all)' }),
      projects,
      h(
        'fieldset',
        {},
        h('legend', { text: 'Rights' }),
        ...boxes.flatMap((box) => [box, h('label', { for: box.id, text: box.value })]),
      ),
      h('button', { type: 'submit', text: 'Create token' }),
    ),
  );
  void refresh();
}
