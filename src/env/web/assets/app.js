// mergeforge task browser and demo. Plain JavaScript, no dependencies.
// Every piece of task data is inserted as text (textContent / text nodes), never as HTML.
'use strict';

(function () {
  const FILTERS = ['level', 'family', 'substrate'];
  const ANY = { level: 'any', family: 'any', substrate: 'any' };
  const AGENT_HELP = {
    ours: 'takes our side of every block',
    theirs: 'takes their side of every block',
    union: 'keeps both sides, ours first',
    gold: 'replays the gold merge (knows the answer)',
  };
  const LEVEL_NOTE = {
    easy: 'Easy: taking one side solves it.',
    medium: 'Medium: no side alone solves it, a combining resolver does.',
    hard: 'Hard: no baseline resolver solves it.',
  };

  let agents = [];
  let currentId = null;
  let listSeq = 0;
  let lastAgent = 'gold';

  const byId = (id) => document.getElementById(id);

  // Builds an element; `text` sets textContent, `on*` adds listeners, other props are
  // attributes. Children are nodes or strings (appended as text).
  function h(tag, props, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = String(value);
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of [].concat(children === undefined ? [] : children)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  async function api(path, options) {
    const response = await fetch(path, options);
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = null;
    }
    if (!response.ok) {
      throw new Error(body && body.detail ? body.detail : `${path}: HTTP ${response.status}`);
    }
    return body;
  }

  const fmt = (x) => String(Number(Number(x).toFixed(4)));
  const badge = (level) => h('span', { class: `badge level-${level}`, text: level });
  const errorBox = (message) => h('p', { class: 'error', role: 'alert', text: message });

  // ---- the task list ----

  function fillSelect(select, facet, anyLabel) {
    const total = facet.reduce((sum, v) => sum + v.count, 0);
    const labels = [`${anyLabel} (${total})`].concat(facet.map((v) => `${v.value} (${v.count})`));
    const values = [''].concat(facet.map((v) => v.value));
    const same = select.options.length === values.length && values.every((v, i) => select.options[i].value === v);
    if (same) {
      // Relabel in place: rebuilding would disturb a keyboard user inside the select.
      labels.forEach((label, i) => { select.options[i].textContent = label; });
      return;
    }
    const chosen = select.value;
    select.replaceChildren(...values.map((value, i) => h('option', { value, text: labels[i] })));
    select.value = values.includes(chosen) ? chosen : '';
  }

  async function loadList() {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = byId(`f-${name}`).value;
      if (value) params.set(name, value);
    }
    const seq = ++listSeq;
    let data;
    try {
      data = await api(`/api/tasks?${params}`);
    } catch (e) {
      byId('task-list').replaceChildren(h('li', {}, [errorBox(e.message)]));
      return;
    }
    if (seq !== listSeq) return;
    agents = data.agents;
    byId('dataset').textContent = `${data.dataset} ${data.version} · ${data.total} tasks`;
    for (const name of FILTERS) fillSelect(byId(`f-${name}`), data.facets[name], ANY[name]);
    byId('list-count').textContent = `${data.matching} of ${data.total} tasks`;
    renderList(data.tasks);
  }

  function renderList(tasks) {
    const list = byId('task-list');
    list.replaceChildren(...tasks.map((t) => h('li', {}, [
      h('a', {
        class: 'task-link',
        href: `#task=${encodeURIComponent(t.id)}`,
        'data-id': t.id,
        'aria-current': t.id === currentId ? 'true' : null,
      }, [
        h('span', { class: 'task-id', text: t.id }),
        h('span', { class: 'task-meta' }, [badge(t.level), ` ${t.family} · ${t.substrate} · score ${t.score.toFixed(3)}`]),
        h('span', { class: 'task-summary', text: t.summary }),
      ]),
    ])));
    if (!tasks.length) list.append(h('li', { class: 'muted', text: 'No task matches these filters.' }));
  }

  function markCurrent() {
    for (const link of document.querySelectorAll('.task-link')) {
      if (link.dataset.id === currentId) link.setAttribute('aria-current', 'true');
      else link.removeAttribute('aria-current');
    }
  }

  // ---- code blocks ----

  function conflictClasses(lines) {
    let part = null;
    return lines.map((line) => {
      if (line.startsWith('<<<<<<<')) { part = 'ours'; return 'mk mk-ours'; }
      if (part === 'ours' && line.startsWith('|||||||')) { part = 'base'; return 'mk mk-base'; }
      if (part && part !== 'theirs' && line.replace(/\r$/, '') === '=======') { part = 'theirs'; return 'mk mk-split'; }
      if (part === 'theirs' && line.startsWith('>>>>>>>')) { part = null; return 'mk mk-theirs'; }
      return part ? `c-${part}` : '';
    });
  }

  function diffClass(line) {
    if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')) return 'd-file';
    if (line.startsWith('@@')) return 'd-hunk';
    if (line.startsWith('+')) return 'd-add';
    if (line.startsWith('-')) return 'd-del';
    return '';
  }

  // kind: 'conflict' (highlights conflict blocks), 'plain', or 'diff'.
  function codeBlock(title, text, kind) {
    const lines = text.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const classes = kind === 'conflict' ? conflictClasses(lines) : kind === 'diff' ? lines.map(diffClass) : lines.map(() => '');
    const pre = h('pre', {
      class: `code ${kind === 'diff' ? 'diff' : 'numbered'}`,
      tabindex: '0',
      'aria-label': title,
    });
    lines.forEach((line, i) => pre.append(h('span', { class: `ln ${classes[i]}`.trim() }, line ? [line] : [])));
    return { figure: h('figure', { class: 'block' }, [h('figcaption', { text: title }), pre]), pre, classes };
  }

  // Scrolls a code block so that line `index` is near the top.
  function scrollToLine(pre, index) {
    const line = pre.children[index];
    if (line) pre.scrollTop = Math.max(0, line.offsetTop - 3 * line.offsetHeight);
  }

  // The 0-based line of the new side where a unified diff's first hunk starts.
  function firstNewLine(diff) {
    const match = /^@@ -\d+(?:,\d+)? \+(\d+)/m.exec(diff || '');
    return match ? Math.max(0, Number(match[1]) - 1) : null;
  }

  const legend = () => h('p', { class: 'legend' }, [
    'Conflict blocks: ',
    h('span', { class: 'key c-ours', text: 'ours' }), ' ',
    h('span', { class: 'key c-base', text: 'base' }), ' ',
    h('span', { class: 'key c-theirs', text: 'theirs' }),
  ]);

  // ---- one task ----

  function section(id, title, children) {
    return h('section', { 'aria-labelledby': id }, [h('h3', { id, text: title })].concat(children));
  }

  function fileView(file, scrolls) {
    const conflicted = codeBlock(`Conflicted ${file.path}`, file.conflicted, 'conflict');
    const gold = codeBlock(`Gold ${file.path}`, file.gold, 'plain');
    const diff = codeBlock(`Diff conflicted → gold, ${file.path}`, file.diff || '(no difference)', 'diff');
    const first = conflicted.classes.findIndex((c) => c.startsWith('mk'));
    const firstChange = diff.classes.findIndex((c) => c === 'd-hunk');
    if (first >= 0) scrolls.push(() => { scrollToLine(conflicted.pre, first); scrollToLine(gold.pre, first); });
    else if (firstChange >= 0) {
      const match = /^@@ -(\d+)/.exec(file.diff.split('\n')[firstChange]);
      const at = match ? Number(match[1]) - 1 : 0;
      scrolls.push(() => { scrollToLine(conflicted.pre, at); scrollToLine(gold.pre, at); });
    }
    const note = file.has_conflict ? ' (conflicted)' : ' (no markers: the gold merge edits it outside the conflicts)';
    return h('article', { class: 'file' }, [
      h('h4', {}, [h('code', { text: file.path }), note]),
      file.has_conflict ? legend() : null,
      h('div', { class: 'pair' }, [conflicted.figure, gold.figure]),
      diff.figure,
    ]);
  }

  function failing(tests) {
    if (!tests.length) return 'none';
    return h('details', {}, [
      h('summary', { text: `${tests.length} failing` }),
      h('ul', { class: 'tests' }, tests.map((t) => h('li', {}, [h('code', { text: t })]))),
    ]);
  }

  function result(outcome) {
    if (!outcome) return h('span', { class: 'na', text: 'not available' });
    if (outcome.passed) return h('span', { class: 'ok', text: 'passes' });
    return h('span', { class: 'bad', text: outcome.timed_out ? 'times out' : 'fails' });
  }

  function table(caption, headings, rows) {
    return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption }, [
      h('table', {}, [
        h('caption', { text: caption }),
        h('thead', {}, [h('tr', {}, headings.map((t) => h('th', { scope: 'col', text: t })))]),
        h('tbody', {}, rows),
      ]),
    ]);
  }

  function validationTable(rows) {
    return table('Test runs that validated the task', ['Tree', 'Tests', 'Failing tests'], rows.map((r) =>
      h('tr', {}, [h('th', { scope: 'row', text: r.tree }), h('td', {}, [result(r)]), h('td', {}, [failing(r.failed_tests)])])));
  }

  function ladderTable(rows) {
    return table('Baseline resolvers on the conflicted tree', ['Resolver', 'Rung', 'Tests', 'Failing tests'], rows.map((r) =>
      h('tr', {}, [h('th', { scope: 'row', text: r.resolver }), h('td', {}, [badge(r.rung)]), h('td', {}, [result(r.outcome)]),
        h('td', {}, [r.outcome ? failing(r.outcome.failed_tests) : '—'])])));
  }

  function runSection(taskId) {
    const select = h('select', { id: 'agent', name: 'agent' },
      agents.map((a) => h('option', { value: a, text: AGENT_HELP[a] ? `${a}: ${AGENT_HELP[a]}` : a })));
    select.value = agents.includes(lastAgent) ? lastAgent : (agents[0] || '');
    const form = h('form', { class: 'run-form', onsubmit: (e) => { e.preventDefault(); runAgent(taskId); } }, [
      h('div', { class: 'field' }, [h('label', { for: 'agent', text: 'Agent' }), select]),
      h('button', { type: 'submit', id: 'run', text: 'Run agent' }),
    ]);
    return section('run-title', 'Run an agent', [
      h('p', { class: 'muted', text: 'Plays one episode through the environment: the task is materialised as a git repository in the middle of the merge, the agent acts, the tests run in the sandbox and the reward is paid step by step.' }),
      form,
      h('p', { id: 'run-status', class: 'status', role: 'status', 'aria-live': 'polite' }),
      h('div', { id: 'run-result' }),
    ]);
  }

  async function openTask(id) {
    currentId = id;
    markCurrent();
    const detail = byId('task-detail');
    byId('task-empty').hidden = true;
    detail.hidden = false;
    detail.replaceChildren(h('p', { class: 'muted', role: 'status', text: `Loading ${id}…` }));
    let view;
    try {
      view = await api(`/api/tasks/${encodeURIComponent(id)}`);
    } catch (e) {
      detail.replaceChildren(errorBox(e.message));
      return;
    }
    if (currentId !== id) return;
    renderTask(view);
  }

  function renderTask(view) {
    const t = view.task;
    const scrolls = [];
    const level = t.difficulty.level;
    byId('task-detail').replaceChildren(
      h('header', { class: 'task-head' }, [
        h('h2', { id: 'task-title', tabindex: '-1', text: t.id }),
        h('p', { class: 'task-meta' }, [badge(level),
          ` ${t.family} · substrate ${t.substrate.name} · score ${t.difficulty.score.toFixed(3)} · max reward ${fmt(view.max_reward)}`]),
        h('p', { class: 'summary', text: t.summary }),
      ]),
      section('files-title', 'Conflict and gold resolution', view.files.map((f) => fileView(f, scrolls))),
      section('validation-title', 'Validation record', [validationTable(view.validation)]),
      section('ladder-title', 'Baseline ladder', [h('p', { text: LEVEL_NOTE[level] || '' }), ladderTable(view.ladder)]),
      runSection(t.id),
    );
    scrolls.forEach((f) => f());
    byId('task-title').focus();
  }

  // ---- a demo run ----

  async function runAgent(taskId) {
    const select = byId('agent');
    const button = byId('run');
    const status = byId('run-status');
    const out = byId('run-result');
    const agent = select.value;
    lastAgent = agent;
    button.disabled = true;
    out.replaceChildren();
    status.textContent = `Running ${agent} on ${taskId}: reset, actions, tests…`;
    try {
      const run = await api('/api/demo/run', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ task: taskId, agent }),
      });
      if (!out.isConnected) return;
      renderRun(out, run);
      status.textContent = `${agent} finished in ${run.steps.length} step(s): reward ${fmt(run.reward.total)} of ${fmt(run.reward.max_reward)}.`;
      byId('run-heading').focus();
    } catch (e) {
      if (!out.isConnected) return;
      out.replaceChildren(errorBox(e.message));
      status.textContent = 'The run failed.';
    } finally {
      button.disabled = false;
    }
  }

  function rewardTable(reward) {
    const rows = reward.rows.map((r) => h('tr', {}, [
      h('th', { scope: 'row', text: r.component }), h('td', { text: r.paid_for }), h('td', { class: 'num', text: fmt(r.earned) }),
    ]));
    return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Reward by component' }, [
      h('table', { id: 'reward-table', class: 'reward' }, [
        h('caption', { text: 'Reward by component, summed over the episode' }),
        h('thead', {}, [h('tr', {}, ['Component', 'Paid for', 'Earned'].map((t) => h('th', { scope: 'col', text: t })))]),
        h('tbody', {}, rows),
        h('tfoot', {}, [
          h('tr', {}, [h('th', { scope: 'row', colspan: '2', text: 'Total' }),
            h('td', { id: 'reward-total', class: 'num', 'data-value': reward.total, text: fmt(reward.total) })]),
          h('tr', {}, [h('th', { scope: 'row', colspan: '2', text: 'Maximum for this task' }),
            h('td', { id: 'reward-max', class: 'num', 'data-value': reward.max_reward, text: fmt(reward.max_reward) })]),
        ]),
      ]),
    ]);
  }

  function stepLog(run) {
    const rows = run.steps.map((s) => {
      const c = s.components;
      const parts = [['markers', c.markers], ['syntax', c.syntax], ['tests', c.tests]]
        .filter(([, v]) => v !== 0).map(([k, v]) => `${k} ${v > 0 ? '+' : ''}${fmt(v)}`);
      const tests = s.tests ? `${s.tests.passed} passed, ${s.tests.failed} failed` : (s.tests_passing ? 'pass' : 'not run');
      return h('tr', {}, [
        h('th', { scope: 'row', class: 'num', 'data-label': 'Step', text: s.step }),
        h('td', { 'data-label': 'Action' }, [h('code', { text: s.action })]),
        h('td', { class: 'num', 'data-label': 'Reward', text: fmt(s.reward) }),
        h('td', { 'data-label': 'Components', text: parts.join(', ') || '—' }),
        h('td', { class: 'num', 'data-label': 'Blocks left', text: s.conflict_count }),
        h('td', { 'data-label': 'Tests', text: tests }),
        h('td', { 'data-label': 'Output' }, [s.output ? h('pre', { class: 'output', text: s.output }) : '—']),
      ]);
    });
    const log = table('Steps of the episode', ['#', 'Action', 'Reward', 'Components', 'Blocks left', 'Tests', 'Output'], rows);
    log.classList.add('steps');
    return log;
  }

  function renderRun(out, run) {
    const scrolls = [];
    const verdict = run.reward.reached_max
      ? h('p', { class: 'ok', text: `Maximum reward reached: ${fmt(run.reward.total)}.` })
      : h('p', { class: 'bad', text: `Reward ${fmt(run.reward.total)} of a possible ${fmt(run.reward.max_reward)}${run.tests_passing ? '' : '; the tests do not pass'}.` });
    const parts = [
      h('h4', { id: 'run-heading', tabindex: '-1', text: `${run.agent} on ${run.task_id}` }),
      verdict,
      rewardTable(run.reward),
      run.error ? errorBox(run.error) : null,
      h('h4', { text: 'Step log' }),
      h('p', { class: 'muted', text: run.reset_note }),
      stepLog(run),
      ...run.files.map((f) => {
        const resolved = codeBlock(`Resolved ${f.path}`, f.resolved, 'conflict');
        const diff = codeBlock(`Diff conflicted → resolved, ${f.path}`, f.diff || '(unchanged)', 'diff');
        const at = firstNewLine(f.diff);
        if (at !== null) scrolls.push(() => scrollToLine(resolved.pre, at));
        return h('article', { class: 'file' }, [
          h('h4', {}, [h('code', { text: f.path }), ' as the agent left it']),
          h('div', { class: 'pair' }, [resolved.figure, diff.figure]),
        ]);
      }),
    ];
    out.replaceChildren(...parts.filter(Boolean));
    scrolls.forEach((f) => f());
  }

  // ---- wiring ----

  function route() {
    const match = /^#task=(.+)$/.exec(window.location.hash);
    if (match) openTask(decodeURIComponent(match[1]));
  }

  function start() {
    for (const name of FILTERS) byId(`f-${name}`).addEventListener('change', loadList);
    byId('filters').addEventListener('reset', () => window.setTimeout(loadList, 0));
    byId('filters').addEventListener('submit', (e) => e.preventDefault());
    window.addEventListener('hashchange', route);
    loadList().then(route);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
