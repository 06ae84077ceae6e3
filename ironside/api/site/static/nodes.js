// The node table: every node of the action, filtered and shown a page
// at a time, so the DOM holds one page of rows whatever the site's size.
// Filters and the page survive updates of the report.
'use strict';

(function (I) {
  var PAGE = 100;
  // Fields shown in columns; any other field of a node is shown in its
  // details row.
  var KNOWN = ['name', 'uuid', 'status', 'in_flight', 'reason',
    'provision_state', 'step', 'task', 'current_task', 'tasks'];

  function currentStep(node) {
    return node.step || node.task || node.current_task || '';
  }

  function taskList(tasks) {
    if (!tasks) return [];
    if (Array.isArray(tasks)) return tasks;
    return Object.keys(tasks).map(function (name) {
      var value = tasks[name];
      return value && typeof value === 'object' ?
        Object.assign({task: name}, value) : {task: name, status: value};
    });
  }

  function taskState(task) {
    var status = String(task.status || task.result || '');
    if (/^(success|succeeded|ok|done)$/i.test(status)) return 'success';
    if (/fail|error|timeout|timed/i.test(status)) return 'failed';
    if (/running|in.progress/i.test(status)) return 'running';
    if (/pending|skip|not.started/i.test(status)) return 'pending';
    return 'other';
  }

  function tasksSummary(tasks) {
    var list = taskList(tasks);
    if (!list.length) return '';
    var counts = {};
    list.forEach(function (t) {
      var s = taskState(t);
      counts[s] = (counts[s] || 0) + 1;
    });
    return Object.keys(counts).map(function (s) {
      return counts[s] + ' ' + (s === 'other' ? 'other' :
        I.STATES[s].word);
    }).join(', ');
  }

  I.NodeTable = function (container) {
    var h = I.h;
    var self = this;
    this.page = 0;
    this.expanded = {};
    this.nodes = [];
    this.groupsOf = {};
    this.search = h('input', {type: 'search', id: 'node-search',
      placeholder: 'name, step, reason…', oninput: function () {
        self.page = 0;
        self.render();
      }});
    this.status = h('select', {id: 'node-status', onchange: function () {
      self.page = 0;
      self.render();
    }}, [['', 'any status'], ['in flight', 'in flight'],
      ['not started', 'not started'], ['prepared', 'prepared'],
      ['success', 'success'], ['failure', 'failure']].map(function (o) {
      return h('option', {value: o[0], text: o[1]});
    }));
    this.group = h('select', {id: 'node-group', onchange: function () {
      self.page = 0;
      self.render();
    }}, h('option', {value: '', text: 'any group'}));
    this.count = h('p', {class: 'count', 'aria-live': 'polite'});
    this.prev = h('button', {type: 'button', text: '‹ Previous',
      onclick: function () { self.page -= 1; self.render(); }});
    this.next = h('button', {type: 'button', text: 'Next ›',
      onclick: function () { self.page += 1; self.render(); }});
    this.body = h('tbody');
    this.head = h('tr');
    container.appendChild(h('div', {class: 'filters'},
      h('label', {for: 'node-search'}, 'Filter '), this.search,
      h('label', {for: 'node-status'}, ' Status '), this.status,
      h('label', {for: 'node-group'}, ' Group '), this.group));
    container.appendChild(h('div', {class: 'pager'}, this.prev, this.count,
      this.next));
    container.appendChild(h('div', {class: 'table-wrap'},
      h('table', {class: 'nodes'}, h('caption', {class: 'visually-hidden',
        text: 'Nodes of the action'}), h('thead', {}, this.head),
      this.body)));
  };

  I.NodeTable.prototype.chooseGroup = function (name) {
    this.group.value = name;
    this.page = 0;
    this.render();
  };

  // A new report: remember its nodes and which groups each is in.
  I.NodeTable.prototype.update = function (report) {
    var self = this;
    this.nodes = report.nodes || [];
    this.groupsOf = {};
    (report.groups || []).forEach(function (g) {
      (g.nodes || []).forEach(function (n) {
        (self.groupsOf[n] = self.groupsOf[n] || []).push(g.name);
      });
    });
    var chosen = this.group.value;
    var names = (report.groups || []).map(function (g) { return g.name; });
    var have = Array.prototype.map.call(this.group.options, function (o) {
      return o.value;
    }).slice(1);
    if (have.join('\n') !== names.join('\n')) {
      while (this.group.options.length > 1) this.group.remove(1);
      names.forEach(function (n) {
        self.group.appendChild(I.h('option', {value: n, text: n}));
      });
      this.group.value = names.indexOf(chosen) >= 0 ? chosen : '';
    }
    this.hasTasks = this.nodes.some(function (n) { return n.tasks; });
    this.render();
  };

  I.NodeTable.prototype.matching = function () {
    var text = this.search.value.trim().toLowerCase();
    var status = this.status.value;
    var group = this.group.value;
    var groupsOf = this.groupsOf;
    return this.nodes.filter(function (n) {
      if (status === 'in flight' ? !n.in_flight :
        status && n.status !== status) return false;
      if (group && (groupsOf[n.name] || []).indexOf(group) < 0) return false;
      if (!text) return true;
      return [n.name, n.uuid, n.reason, currentStep(n), n.provision_state]
        .some(function (v) {
          return v && String(v).toLowerCase().indexOf(text) >= 0;
        });
    });
  };

  I.NodeTable.prototype.render = function () {
    var h = I.h;
    var self = this;
    var rows = this.matching();
    var pages = Math.max(1, Math.ceil(rows.length / PAGE));
    this.page = Math.min(Math.max(this.page, 0), pages - 1);
    var first = this.page * PAGE;
    var shown = rows.slice(first, first + PAGE);
    this.count.textContent = rows.length ?
      'Nodes ' + (first + 1) + '–' + (first + shown.length) + ' of ' +
        rows.length + (rows.length < this.nodes.length ?
        ' (filtered from ' + this.nodes.length + ')' : '') :
      'No nodes match (' + this.nodes.length + ' in the action)';
    this.prev.disabled = this.page === 0;
    this.next.disabled = this.page >= pages - 1;
    var columns = ['Name', 'Status', 'In flight', 'Provision state',
      'Step or task', 'Groups', 'Reason'];
    if (this.hasTasks) columns.push('Tasks');
    columns.push('');
    I.clear(this.head);
    columns.forEach(function (c) {
      self.head.appendChild(h('th', {scope: 'col', text: c}));
    });
    I.clear(this.body);
    shown.forEach(function (n) {
      var known = I.NODE_STATUSES[n.status] || {icon: '•', cls: 'other'};
      var open = !!self.expanded[n.name];
      var cells = [
        h('th', {scope: 'row', class: 'name', text: n.name}),
        h('td', {}, h('span', {class: 'badge state-' + known.cls},
          h('span', {class: 'icon', 'aria-hidden': 'true',
            text: known.icon}), ' ' + n.status)),
        h('td', {}, n.in_flight ? h('span', {class: 'badge state-running'},
          h('span', {class: 'icon', 'aria-hidden': 'true', text: '▶'}),
          ' ' + n.in_flight) : '—'),
        h('td', {text: n.provision_state || '—'}),
        h('td', {class: 'step', text: currentStep(n) || '—'}),
        h('td', {text: (self.groupsOf[n.name] || []).join(', ')}),
        h('td', {class: 'reason', text: n.reason || ''}),
      ];
      if (self.hasTasks) cells.push(h('td', {text: tasksSummary(n.tasks)}));
      cells.push(h('td', {}, h('button', {type: 'button', class: 'details',
        'aria-expanded': String(open), text: open ? 'Hide' : 'Details',
        'aria-label': (open ? 'Hide details of ' : 'Details of ') + n.name,
        onclick: function () {
          self.expanded[n.name] = !open;
          self.render();
        }})));
      self.body.appendChild(h('tr', {'data-node': n.name,
        class: 'status-' + known.cls}, cells));
      if (open) {
        self.body.appendChild(h('tr', {class: 'detail'},
          h('td', {colspan: columns.length}, details(n))));
      }
    });
  };

  function details(node) {
    var h = I.h;
    var items = [['UUID', node.uuid]];
    Object.keys(node).forEach(function (key) {
      if (KNOWN.indexOf(key) < 0) items.push([key, I.json(node[key])]);
    });
    var parts = [h('dl', {}, items.map(function (kv) {
      return [h('dt', {text: kv[0]}), h('dd', {text: kv[1]})];
    }))];
    var tasks = taskList(node.tasks);
    if (tasks.length) {
      parts.push(h('table', {class: 'tasks'},
        h('caption', {text: 'Tasks of ' + node.name}),
        h('thead', {}, h('tr', {}, ['Task', 'Status', 'Duration',
          'Exit status', 'Reason', 'Output'].map(function (c) {
          return h('th', {scope: 'col', text: c});
        }))),
        h('tbody', {}, tasks.map(function (t) {
          var state = taskState(t);
          return h('tr', {},
            h('th', {scope: 'row', text: t.task || t.name || '?'}),
            h('td', {}, I.badge(state, String(t.status || t.result || ''))),
            h('td', {text: t.duration !== undefined ?
              Number(t.duration).toFixed(1) + ' s' : ''}),
            h('td', {text: t.exit_status !== undefined &&
              t.exit_status !== null ? t.exit_status : ''}),
            h('td', {text: t.reason || ''}),
            h('td', {}, t.output_tail ? h('pre', {text: t.output_tail}) :
              ''));
        }))));
    }
    return parts;
  }
})(window.Ironside);
