// The page: the list of site actions (#/) and one action
// (#/actions/<uuid>), kept current by polling the site API with ETags —
// an unchanged report costs a 304 and no rendering.
'use strict';

(function (I) {
  var h = I.h;
  var meta = function (name) {
    var el = document.querySelector('meta[name="ironside-' + name + '"]');
    return el ? el.getAttribute('content') : '';
  };
  var API = meta('api');
  var AUTH = meta('auth');
  var TOKEN_KEY = 'ironside-token';
  var ACTION_POLL_MS = 2000;
  var LIST_POLL_MS = 5000;

  // Figures the browser tests and the benchmark read.
  var stats = I.stats = {started: performance.now(), firstRender: null,
    firstRenderAt: null, renders: 0, notModified: 0, lastFetchMs: null, lastRenderMs: null,
    renderMs: [], errors: 0};

  function live(text) {
    document.getElementById('live').textContent = text;
  }

  function showToken(message) {
    var box = document.getElementById('token');
    box.hidden = false;
    document.getElementById('token-error').textContent = message || '';
    document.getElementById('token-input').focus();
  }

  document.getElementById('token-form').addEventListener('submit',
    function (ev) {
      ev.preventDefault();
      sessionStorage.setItem(TOKEN_KEY,
        document.getElementById('token-input').value.trim());
      document.getElementById('token').hidden = true;
      route();
    });

  // GET a site API path: {status, etag, body}. 401 under keystone asks
  // for a token; other errors carry the API's message.
  function get(path, etag) {
    var headers = {'Accept': 'application/json'};
    if (etag) headers['If-None-Match'] = etag;
    var token = sessionStorage.getItem(TOKEN_KEY);
    if (AUTH === 'keystone' && token) headers['X-Auth-Token'] = token;
    return fetch(API + path, {headers: headers, cache: 'no-cache',
      credentials: 'same-origin'}).then(function (resp) {
      if (resp.status === 304) return {status: 304, etag: etag};
      if (resp.status === 401 && AUTH === 'keystone') {
        showToken(token ? 'The token was refused; paste a new one.' : '');
        throw new Error('authentication required');
      }
      return resp.json().then(function (body) {
        if (!resp.ok) {
          var message = resp.statusText;
          try {
            message = JSON.parse(body.error_message).faultstring;
          } catch (e) { /* not in Ironic's error format */ }
          throw new Error(message + ' (HTTP ' + resp.status + ')');
        }
        return {status: resp.status, etag: resp.headers.get('ETag'),
          body: body};
      });
    });
  }

  // Polls ``path`` every ``interval`` ms while the page shows it;
  // ``render(body)`` returns true when there is nothing more to wait for.
  function Poller(path, interval, render) {
    this.path = path;
    this.interval = interval;
    this.render = render;
    this.etag = null;
    this.stopped = false;
    this.timer = null;
  }

  Poller.prototype.stop = function () {
    this.stopped = true;
    clearTimeout(this.timer);
  };

  Poller.prototype.poll = function () {
    var self = this;
    if (this.stopped) return;
    if (document.hidden) {
      this.timer = setTimeout(function () { self.poll(); }, this.interval);
      return;
    }
    var fetched = performance.now();
    get(this.path, this.etag).then(function (answer) {
      if (self.stopped) return;
      stats.lastFetchMs = performance.now() - fetched;
      var done = false;
      if (answer.status === 304) {
        stats.notModified += 1;
      } else {
        self.etag = answer.etag;
        var started = performance.now();
        done = self.render(answer.body);
        var took = performance.now() - started;
        stats.renders += 1;
        stats.lastRenderMs = took;
        stats.renderMs.push(took);
        if (stats.firstRender === null) {
          stats.firstRender = performance.now() - stats.started;
          // Since navigation began: page, scripts, report and drawing.
          stats.firstRenderAt = performance.now();
        }
      }
      live('Updated ' + new Date().toLocaleTimeString() +
        (done ? '' : '; live'));
      if (!done) {
        self.timer = setTimeout(function () { self.poll(); }, self.interval);
      }
    }).catch(function (err) {
      if (self.stopped) return;
      stats.errors += 1;
      live('Could not update: ' + err.message + '; retrying');
      self.timer = setTimeout(function () { self.poll(); },
        self.interval * 2);
    });
  };

  var current = null;

  function showList() {
    var main = I.clear(document.getElementById('main'));
    document.title = 'Ironside · site actions';
    var body = h('tbody');
    main.appendChild(h('h1', {text: 'Site actions'}));
    main.appendChild(h('div', {class: 'table-wrap'},
      h('table', {class: 'actions'},
        h('caption', {text: 'Newest first'}),
        h('thead', {}, h('tr', {}, ['Action', 'Strategy', 'State',
          'Result', 'Created', 'Started', 'Finished', 'UUID']
          .map(function (c) { return h('th', {scope: 'col', text: c}); }))),
        body)));
    return new Poller('/actions', LIST_POLL_MS, function (answer) {
      I.clear(body);
      var actions = answer.actions || [];
      if (!actions.length) {
        body.appendChild(h('tr', {}, h('td', {colspan: 8,
          text: 'No site actions yet.'})));
      }
      actions.forEach(function (a) {
        var state = I.actionState(a);
        body.appendChild(h('tr', {'data-action': a.uuid},
          h('th', {scope: 'row'}, h('a', {href: '#/actions/' + a.uuid,
            text: a.action})),
          h('td', {text: a.strategy}),
          h('td', {}, I.badge(state, a.state)),
          h('td', {text: a.result || '—'}),
          h('td', {text: I.time(a.created_at)}),
          h('td', {text: I.time(a.started_at)}),
          h('td', {text: I.time(a.finished_at)}),
          h('td', {class: 'mono', text: a.uuid})));
      });
      return false;
    });
  }

  function showAction(uuid) {
    var main = I.clear(document.getElementById('main'));
    main.appendChild(h('p', {}, h('a', {href: '#/', text: '‹ All actions'})));
    var view = new I.ActionView(main);
    return new Poller('/actions/' + encodeURIComponent(uuid),
      ACTION_POLL_MS, function (report) {
        document.title = report.action + ' ' + report.state +
          ' · Ironside';
        I.views = view.update(report);
        return I.ended(report);
      });
  }

  function route() {
    if (current) current.stop();
    var match = /^#\/actions\/([^/]+)$/.exec(location.hash);
    current = match ? showAction(decodeURIComponent(match[1])) : showList();
    current.poll();
  }

  window.addEventListener('hashchange', route);
  route();
})(window.Ironside);
