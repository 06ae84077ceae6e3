// One site action: its header, the design revision and diff it deploys
// (when the report has them), the group graph with a table saying the
// same in words, the waves in flight, and the node table.
'use strict';

(function (I) {
  var h = I.h;
  // Report fields this view shows; others are listed at the bottom.
  var KNOWN = ['uuid', 'action', 'strategy', 'state', 'result', 'owner',
    'created_at', 'started_at', 'finished_at', 'groups', 'nodes',
    'node_counts', 'revision', 'diff'];
  var IN_FLIGHT_SHOWN = 40;

  I.ActionView = function (container) {
    var self = this;
    this.header = h('section', {class: 'action-header',
      'aria-labelledby': 'action-title'});
    this.revision = h('section', {class: 'revision', hidden: true,
      'aria-labelledby': 'revision-title'});
    this.graph = h('div', {class: 'graph-wrap', id: 'graph'});
    this.groupTable = h('tbody');
    this.waves = h('div', {id: 'waves'});
    this.nodesBox = h('div', {id: 'nodes'});
    this.more = h('section', {class: 'more', hidden: true});
    I.append(container, [
      this.header, this.revision,
      h('section', {'aria-labelledby': 'groups-title'},
        h('h2', {id: 'groups-title', text: 'Groups'}),
        legend(), this.graph,
        h('div', {class: 'table-wrap'}, h('table', {class: 'groups'},
          h('caption', {text: 'Groups in the order they run'}),
          h('thead', {}, h('tr', {}, ['Group', 'Critical', 'Nodes',
            'Depends on', 'Waves', 'State', 'Phases'].map(function (c) {
            return h('th', {scope: 'col', text: c});
          }))), this.groupTable))),
      h('section', {'aria-labelledby': 'waves-title'},
        h('h2', {id: 'waves-title', text: 'In flight'}), this.waves),
      h('section', {'aria-labelledby': 'nodes-title'},
        h('h2', {id: 'nodes-title', text: 'Nodes'}), this.nodesBox),
      this.more]);
    this.table = new I.NodeTable(this.nodesBox);
    I.onGroupChosen = function (name) {
      self.table.chooseGroup(name);
      self.nodesBox.scrollIntoView({block: 'start'});
    };
  };

  function legend() {
    return h('p', {class: 'legend'}, 'Legend: ',
      ['pending', 'running', 'success', 'partial', 'failed'].map(function (s) {
        return [I.badge(s, I.STATES[s].word), ' '];
      }), h('span', {class: 'hint',
        text: 'Select a group to list its nodes.'}));
  }

  function failedCounts(report) {
    var failed = {};
    (report.nodes || []).forEach(function (n) {
      if (n.status === 'failure') failed[n.name] = true;
    });
    var counts = {};
    (report.groups || []).forEach(function (g) {
      counts[g.name] = (g.nodes || []).filter(function (n) {
        return failed[n];
      }).length;
    });
    return counts;
  }

  function waveText(strategy) {
    if (!strategy) return '—';
    if (strategy.type === 'one_by_one') return 'one by one';
    return strategy.amount ? 'parallel, ' + strategy.amount + ' at a time' :
      'parallel, all at once';
  }

  I.ActionView.prototype.update = function (report) {
    var counts = failedCounts(report);
    var views = {};
    (report.groups || []).forEach(function (g) {
      views[g.name] = I.groupView(g, counts[g.name]);
    });
    this.renderHeader(report);
    this.renderRevision(report);
    I.drawGraph(this.graph, report.groups || [], views);
    this.renderGroups(report, views);
    this.renderWaves(report, views);
    this.table.update(report);
    this.renderMore(report);
    return views;
  };

  I.ActionView.prototype.renderHeader = function (report) {
    var counts = report.node_counts || {};
    var inFlight = (report.nodes || []).filter(function (n) {
      return n.in_flight;
    }).length;
    var state = I.actionState(report);
    I.clear(this.header);
    I.append(this.header, [
      h('h1', {id: 'action-title'}, report.action + ' · ' + report.strategy),
      h('dl', {class: 'facts'},
        h('dt', {text: 'State'}), h('dd', {id: 'action-state'},
          I.badge(state, report.state + (report.result ? ': ' +
            report.result : ''))),
        h('dt', {text: 'Action'}), h('dd', {class: 'mono', text: report.uuid}),
        h('dt', {text: 'Conductor'}), h('dd', {text: report.owner || '—'}),
        h('dt', {text: 'Created'}), h('dd', {text: I.time(report.created_at)}),
        h('dt', {text: 'Started'}), h('dd', {text: I.time(report.started_at)}),
        h('dt', {text: 'Finished'}),
        h('dd', {text: I.time(report.finished_at)}),
        h('dt', {text: 'Nodes'}), h('dd', {id: 'node-counts'},
          Object.keys(counts).map(function (s) {
            return counts[s] + ' ' + s;
          }).join(', ') + (inFlight ? '; ' + inFlight + ' in flight' : '')))]);
  };

  function revisionText(revision) {
    if (revision === null || typeof revision !== 'object') {
      return String(revision);
    }
    var main = ['revision', 'id', 'number', 'name', 'tag']
      .filter(function (k) { return revision[k] !== undefined; })
      .map(function (k) { return k + ' ' + revision[k]; });
    return main.length ? main.join(', ') : I.json(revision);
  }

  function diffItem(item) {
    if (item === null || typeof item !== 'object') return String(item);
    var op = item.op || item.change || item.action || item.type;
    var path = item.path || item.document || item.name || item.key;
    if (op && path) {
      var text = op + ' ' + path;
      if ('old' in item || 'new' in item) {
        text += ': ' + I.json(item.old === undefined ? '∅' : item.old) +
          ' → ' + I.json(item.new === undefined ? '∅' : item.new);
      } else if ('value' in item) {
        text += ': ' + I.json(item.value);
      }
      return text;
    }
    return I.json(item);
  }

  I.ActionView.prototype.renderRevision = function (report) {
    var has = report.revision !== undefined && report.revision !== null;
    var hasDiff = report.diff !== undefined && report.diff !== null;
    // Drawn again only when it changes, so an opened diff stays open.
    var key = JSON.stringify([report.revision, report.diff]);
    if (key === this.revisionKey) return;
    this.revisionKey = key;
    this.revision.hidden = !has && !hasDiff;
    I.clear(this.revision);
    if (this.revision.hidden) return;
    I.append(this.revision, h('h2', {id: 'revision-title',
      text: 'Design revision'}));
    if (has) {
      I.append(this.revision, h('p', {id: 'revision'},
        'This action deploys ', h('strong', {text:
          revisionText(report.revision)}), '.'));
    }
    if (hasDiff) {
      var diff = report.diff;
      var body;
      if (typeof diff === 'string') {
        body = h('pre', {class: 'diff', text: diff});
      } else if (Array.isArray(diff)) {
        body = diff.length ? h('ul', {class: 'diff'}, diff.map(function (d) {
          return h('li', {text: diffItem(d)});
        })) : h('p', {text: 'No changes.'});
      } else {
        body = h('dl', {class: 'diff'}, Object.keys(diff).map(function (k) {
          return [h('dt', {text: k}), h('dd', {}, h('pre', {text:
            I.json(diff[k])}))];
        }));
      }
      I.append(this.revision, h('details', {open: true, id: 'diff'},
        h('summary', {text: 'Changes it deploys'}), body));
    }
  };

  I.ActionView.prototype.renderGroups = function (report, views) {
    var body = I.clear(this.groupTable);
    (report.groups || []).forEach(function (g) {
      var view = views[g.name];
      body.appendChild(h('tr', {'data-group': g.name},
        h('th', {scope: 'row', text: g.name}),
        h('td', {text: g.critical ? 'yes' : 'no'}),
        h('td', {text: (g.nodes || []).length}),
        h('td', {text: (g.depends_on || []).join(', ') || '—'}),
        h('td', {text: waveText(g.strategy)}),
        h('td', {}, I.badge(view.state, view.label)),
        h('td', {class: 'phases'}, view.phases.map(function (p) {
          return h('div', {},
            p.name + ': ', I.badge(p.view.state, p.view.label),
            p.view.detail ? ' — ' + p.view.detail : '');
        }))));
    });
  };

  I.ActionView.prototype.renderWaves = function (report, views) {
    var box = I.clear(this.waves);
    var byName = {};
    (report.nodes || []).forEach(function (n) { byName[n.name] = n; });
    var running = (report.groups || []).filter(function (g) {
      return views[g.name].phases.some(function (p) {
        return p.view.state === 'running';
      });
    });
    if (!running.length) {
      box.appendChild(h('p', {text: I.ended(report) ?
        'Nothing: the action has ' + report.state + '.' :
        'No group is running now.'}));
      return;
    }
    running.forEach(function (g) {
      var phase = views[g.name].phases.filter(function (p) {
        return p.view.state === 'running';
      })[0];
      var flying = (g.nodes || []).map(function (n) {
        return byName[n];
      }).filter(function (n) { return n && n.in_flight; });
      var list = flying.slice(0, IN_FLIGHT_SHOWN);
      box.appendChild(h('div', {class: 'wave', 'data-group': g.name},
        h('h3', {}, phase.name + ' of ' + g.name + ': ',
          I.badge('running', phase.view.label)),
        h('p', {text: flying.length + ' node' + (flying.length === 1 ?
          '' : 's') + ' in flight; waves: ' + waveText(g.strategy) + '.'}),
        list.length ? h('ul', {class: 'in-flight'}, list.map(function (n) {
          var step = n.step || n.task || n.current_task;
          return h('li', {'data-node': n.name},
            h('span', {class: 'name', text: n.name}),
            ' — ' + (n.provision_state || n.in_flight) +
              (step ? ', ' + step : ''));
        })) : null,
        flying.length > list.length ? h('p', {text: 'and ' +
          (flying.length - list.length) + ' more (status "in flight" in ' +
          'the node table).'}) : null));
    });
  };

  I.ActionView.prototype.renderMore = function (report) {
    var extra = Object.keys(report).filter(function (k) {
      return KNOWN.indexOf(k) < 0;
    });
    var key = JSON.stringify(extra.map(function (k) { return report[k]; }));
    if (key === this.moreKey) return;
    this.moreKey = key;
    this.more.hidden = !extra.length;
    I.clear(this.more);
    if (!extra.length) return;
    I.append(this.more, h('details', {},
      h('summary', {text: 'More in the report'}),
      h('dl', {}, extra.map(function (k) {
        return [h('dt', {text: k}), h('dd', {}, h('pre', {text:
          I.json(report[k])}))];
      }))));
  };
})(window.Ironside);
