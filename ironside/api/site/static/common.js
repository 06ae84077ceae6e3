// What the pages share: building DOM nodes, and the report's vocabulary
// turned into states a person reads (an icon, a word, a colour class).
//
// The view is driven by the report JSON of the site API. Fields it does
// not know are shown as they are rather than dropped, so a newer server
// (design revisions, per-node tasks, more phases) still shows everything.
'use strict';

window.Ironside = window.Ironside || {};

(function (I) {
  // h('div', {class: 'x', onclick: f}, child, 'text', [more]) -> element.
  // Text is always set as text, never parsed as HTML.
  I.h = function (tag, attrs) {
    var svg = I.SVG_TAGS.has(tag);
    var el = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag)
      : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key.slice(0, 2) === 'on') {
        el.addEventListener(key.slice(2), value);
      } else if (key === 'text') {
        el.textContent = value;
      } else {
        el.setAttribute(key, value === true ? '' : String(value));
      }
    });
    for (var i = 2; i < arguments.length; i++) I.append(el, arguments[i]);
    return el;
  };

  I.append = function (el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) {
      child.forEach(function (c) { I.append(el, c); });
    } else if (typeof child === 'object' && child.nodeType) {
      el.appendChild(child);
    } else {
      el.appendChild(document.createTextNode(String(child)));
    }
  };

  I.SVG_TAGS = new Set(['svg', 'g', 'rect', 'path', 'text', 'title',
    'defs', 'marker', 'tspan', 'line']);

  I.clear = function (el) {
    while (el.firstChild) el.removeChild(el.firstChild);
    return el;
  };

  I.time = function (value) {
    if (!value) return '—';
    var date = new Date(/Z|[+-]\d\d:?\d\d$/.test(value) ? value : value + 'Z');
    return isNaN(date) ? value : date.toLocaleString();
  };

  I.plural = function (count, word) {
    return count + ' ' + word + (count === 1 ? '' : 's');
  };

  I.json = function (value) {
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  };

  // States a group or a phase can be in. Each has an icon and words, so
  // the page reads the same without colour.
  I.STATES = {
    pending: {icon: '○', word: 'not started'},
    running: {icon: '▶', word: 'running'},
    success: {icon: '✓', word: 'success'},
    partial: {icon: '⚠', word: 'success with failures'},
    failed: {icon: '✗', word: 'failed'},
    other: {icon: '•', word: ''},
  };

  I.NODE_STATUSES = {
    'not started': {icon: '○', cls: 'pending'},
    'prepared': {icon: '◐', cls: 'prepared'},
    'success': {icon: '✓', cls: 'success'},
    'failure': {icon: '✗', cls: 'failed'},
  };

  // Why a phase ended as it did, from the extra fields of its outcome.
  I.outcomeDetail = function (outcome) {
    if (outcome.criteria && outcome.criteria.length) {
      return outcome.criteria.map(function (c) {
        return c.criterion + ' needed ' + c.needed + ', actual ' + c.actual;
      }).join('; ');
    }
    if (outcome.dependencies && outcome.dependencies.length) {
      return 'dependency ' + outcome.dependencies.join(', ') + ' failed';
    }
    if (outcome.timeout) return 'after ' + outcome.timeout + ' seconds';
    if (outcome.reason) return String(outcome.reason);
    return '';
  };

  // The phases of a group: prepare and deploy first, then any other
  // member that looks like an outcome (an object with a result).
  I.phases = function (group) {
    var names = ['prepare', 'deploy'].filter(function (p) {
      return group[p] && typeof group[p] === 'object';
    });
    Object.keys(group).forEach(function (key) {
      var value = group[key];
      if (names.indexOf(key) < 0 && value && typeof value === 'object' &&
          !Array.isArray(value) && typeof value.result === 'string') {
        names.push(key);
      }
    });
    return names;
  };

  // One phase: {state, label, detail}.
  I.phaseView = function (outcome, failedNodes) {
    var result = String(outcome.result);
    if (result === 'pending') {
      return {state: 'pending', label: 'not started', detail: ''};
    }
    if (result === 'running') {
      var count = outcome.total !== undefined ?
        ' ' + outcome.done + '/' + outcome.total : '';
      return {state: 'running', label: 'running' + count, detail: ''};
    }
    if (result === 'success') {
      if (failedNodes) {
        return {state: 'partial', label: 'success, ' + failedNodes +
          ' node' + (failedNodes === 1 ? '' : 's') + ' failed', detail: ''};
      }
      return {state: 'success', label: 'success', detail: ''};
    }
    if (result.indexOf('failed') === 0) {
      return {state: 'failed', label: result,
        detail: I.outcomeDetail(outcome)};
    }
    return {state: 'other', label: result, detail: I.outcomeDetail(outcome)};
  };

  // A group as a whole: its phases' views and one state with a label.
  I.groupView = function (group, failedNodes) {
    var names = I.phases(group);
    var phases = names.map(function (name, index) {
      var later = names.slice(index + 1).some(function (n) {
        return group[n].result !== 'pending';
      });
      // Failed nodes are told on the latest phase that has begun.
      return {name: name, view: I.phaseView(group[name],
        later ? 0 : failedNodes)};
    });
    var states = phases.map(function (p) { return p.view.state; });
    var failed = phases.filter(function (p) {
      return p.view.state === 'failed';
    })[0];
    var running = phases.filter(function (p) {
      return p.view.state === 'running';
    })[0];
    var view;
    if (failed) {
      view = {state: 'failed', label: failed.view.label,
        detail: failed.view.detail};
    } else if (running) {
      view = {state: 'running', label: running.name + ' ' +
        running.view.label, detail: ''};
    } else if (states.length && states.every(function (s) {
      return s === 'pending';
    })) {
      view = {state: 'pending', label: 'not started', detail: ''};
    } else if (states.length && states.every(function (s) {
      return s === 'success' || s === 'partial';
    })) {
      var last = phases[phases.length - 1].view;
      view = {state: last.state, label: last.label, detail: ''};
    } else if (states.indexOf('pending') >= 0) {
      // Between phases: one done, the next not begun yet.
      view = {state: 'running', label: 'running', detail: ''};
    } else {
      var other = phases.filter(function (p) {
        return p.view.state === 'other';
      })[0];
      view = {state: 'other', label: other ? other.view.label : '',
        detail: other ? other.view.detail : ''};
    }
    view.phases = phases;
    return view;
  };

  // Whether an action has ended: finished, or aborted.
  I.ended = function (action) {
    return action.state === 'finished' || action.state === 'aborted';
  };

  // An action as one state: pending, running (aborting too), success,
  // partial, failed, or other (aborted; its label says so).
  I.actionState = function (action) {
    if (action.state === 'queued') return 'pending';
    if (action.state === 'aborted') return 'other';
    if (action.state !== 'finished') return 'running';
    var result = String(action.result || '');
    if (result === 'success') return 'success';
    if (result.indexOf('success') === 0) return 'partial';
    return result.indexOf('failed') === 0 ? 'failed' : 'other';
  };

  // A badge: icon and words, coloured by state.
  I.badge = function (state, label) {
    var known = I.STATES[state] || I.STATES.other;
    return I.h('span', {class: 'badge state-' + state},
      I.h('span', {class: 'icon', 'aria-hidden': 'true', text: known.icon}),
      ' ' + label);
  };
})(window.Ironside);
