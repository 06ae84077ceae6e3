// The group graph: groups as boxes, dependencies as arrows, laid out by
// layers (a group one layer below the deepest group it depends on),
// ordered within a layer to keep arrows short (barycentre sweeps). Drawn
// in SVG with nothing but the DOM.
'use strict';

(function (I) {
  var BOX_W = 230;
  var GAP_X = 36;
  var GAP_Y = 64;
  var LINE = 18;
  var PAD = 12;

  // groups: [{name, depends_on}] -> {layers: [[name]], edges: [[from, to]]}
  I.layout = function (groups) {
    var byName = {};
    groups.forEach(function (g) { byName[g.name] = g; });
    var edges = [];
    groups.forEach(function (g) {
      (g.depends_on || []).forEach(function (d) {
        if (byName[d] && d !== g.name) edges.push([d, g.name]);
      });
    });
    var depth = {};
    var visiting = {};
    function layerOf(name) {
      if (depth[name] !== undefined) return depth[name];
      if (visiting[name]) return 0;  // a cycle: the server refuses those
      visiting[name] = true;
      var deps = (byName[name].depends_on || []).filter(function (d) {
        return byName[d] && d !== name;
      });
      var value = deps.length ? 1 + Math.max.apply(null, deps.map(layerOf))
        : 0;
      visiting[name] = false;
      depth[name] = value;
      return value;
    }
    var layers = [];
    groups.forEach(function (g) {
      var l = layerOf(g.name);
      (layers[l] = layers[l] || []).push(g.name);
    });
    layers = layers.filter(Boolean);
    order(layers, edges);
    return {layers: layers, edges: edges};
  };

  // Barycentre ordering: each layer sorted by the mean position of its
  // neighbours in the layers above, then below; a few sweeps suffice.
  function order(layers, edges) {
    var up = {};
    var down = {};
    edges.forEach(function (e) {
      (up[e[1]] = up[e[1]] || []).push(e[0]);
      (down[e[0]] = down[e[0]] || []).push(e[1]);
    });
    function positions() {
      var pos = {};
      layers.forEach(function (layer) {
        layer.forEach(function (name, i) {
          pos[name] = (i + 0.5) / layer.length;
        });
      });
      return pos;
    }
    function sweep(layer, neighbours, pos) {
      var keyed = layer.map(function (name, i) {
        var n = (neighbours[name] || []).filter(function (m) {
          return pos[m] !== undefined;
        });
        var key = n.length ? n.reduce(function (sum, m) {
          return sum + pos[m];
        }, 0) / n.length : pos[name];
        return {name: name, key: key, index: i};
      });
      keyed.sort(function (a, b) { return a.key - b.key || a.index - b.index; });
      return keyed.map(function (k) { return k.name; });
    }
    for (var round = 0; round < 3; round++) {
      var i;
      for (i = 1; i < layers.length; i++) {
        layers[i] = sweep(layers[i], up, positions());
      }
      for (i = layers.length - 2; i >= 0; i--) {
        layers[i] = sweep(layers[i], down, positions());
      }
    }
  }

  function boxHeight(view) {
    return PAD * 2 + LINE * (2 + view.phases.length) + (view.detail ? LINE : 0);
  }

  function clip(text, chars) {
    text = String(text);
    return text.length > chars ? text.slice(0, chars - 1) + '…' : text;
  }

  // Draw the graph into ``container``. ``views`` maps a group's name to
  // I.groupView(...); ``report`` gives the groups in run order.
  I.drawGraph = function (container, groups, views) {
    var layout = I.layout(groups);
    var byName = {};
    groups.forEach(function (g) { byName[g.name] = g; });
    var widest = Math.max.apply(null, layout.layers.map(function (l) {
      return l.length;
    }).concat([1]));
    var rowHeights = layout.layers.map(function (layer) {
      return Math.max.apply(null, layer.map(function (n) {
        return boxHeight(views[n]);
      }));
    });
    var width = widest * BOX_W + (widest + 1) * GAP_X;
    // Half a gap above the first layer and below the last, a gap between.
    var height = rowHeights.reduce(function (a, b) { return a + b; }, 0) +
      layout.layers.length * GAP_Y;
    var at = {};
    var y = GAP_Y / 2;
    layout.layers.forEach(function (layer, li) {
      var offset = (width - (layer.length * BOX_W +
        (layer.length - 1) * GAP_X)) / 2;
      layer.forEach(function (name, i) {
        at[name] = {x: offset + i * (BOX_W + GAP_X), y: y,
          h: boxHeight(views[name])};
      });
      y += rowHeights[li] + GAP_Y;
    });

    var h = I.h;
    var svg = h('svg', {class: 'graph', role: 'img',
      width: width, height: height, viewBox: '0 0 ' + width + ' ' + height,
      'aria-label': 'Group graph: ' + groups.length + ' groups, ' +
        layout.edges.length + ' dependencies. The table below says the same.'},
    h('defs', {},
      h('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5,
        markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse'},
      h('path', {d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrowhead'}))));

    var edgeLayer = h('g', {class: 'edges'});
    layout.edges.forEach(function (e) {
      var from = at[e[0]];
      var to = at[e[1]];
      var x1 = from.x + BOX_W / 2;
      var y1 = from.y + from.h;
      var x2 = to.x + BOX_W / 2;
      var y2 = to.y - 2;
      var bend = Math.max(24, (y2 - y1) / 2);
      var blocked = views[e[0]].state === 'failed';
      edgeLayer.appendChild(h('path', {
        class: 'edge' + (blocked ? ' blocked' : ''),
        'data-from': e[0], 'data-to': e[1],
        'marker-end': 'url(#arrow)',
        d: 'M ' + x1 + ' ' + y1 + ' C ' + x1 + ' ' + (y1 + bend) + ', ' +
          x2 + ' ' + (y2 - bend) + ', ' + x2 + ' ' + y2},
      h('title', {text: e[1] + ' depends on ' + e[0] +
        (blocked ? ' (failed)' : '')})));
    });
    svg.appendChild(edgeLayer);

    var boxLayer = h('g', {class: 'groups'});
    groups.forEach(function (g) {
      var view = views[g.name];
      var pos = at[g.name];
      var lines = [];
      var ty = pos.y + PAD + 13;
      lines.push(h('text', {x: pos.x + PAD, y: ty, class: 'name'},
        clip(g.name, 24), g.critical ? h('tspan', {class: 'critical',
          text: ' ★ critical'}) : null));
      ty += LINE;
      lines.push(h('text', {x: pos.x + PAD, y: ty, class: 'meta'},
        I.plural(g.nodes ? g.nodes.length : 0, 'node') + ' · ' +
        I.STATES[view.state].icon + ' ' + clip(view.label, 22)));
      view.phases.forEach(function (p) {
        ty += LINE;
        lines.push(h('text', {x: pos.x + PAD, y: ty,
          class: 'phase phase-' + p.view.state, 'data-phase': p.name},
        p.name + ': ' + (I.STATES[p.view.state] || I.STATES.other).icon +
          ' ' + clip(p.view.label, 24)));
      });
      if (view.detail) {
        ty += LINE;
        lines.push(h('text', {x: pos.x + PAD, y: ty, class: 'reason'},
          clip(view.detail, 32)));
      }
      var summary = g.name + (g.critical ? ' (critical)' : '') + ': ' +
        (I.STATES[view.state].word || view.label) + '. ' +
        view.phases.map(function (p) {
          return p.name + ' ' + p.view.label +
            (p.view.detail ? ' (' + p.view.detail + ')' : '');
        }).join('; ');
      boxLayer.appendChild(h('g', {class: 'group state-' + view.state,
        'data-group': g.name, 'data-state': view.state, tabindex: 0,
        role: 'button', 'aria-label': summary + '. Show its nodes.',
        onclick: function () { I.onGroupChosen && I.onGroupChosen(g.name); },
        onkeydown: function (ev) {
          if ((ev.key === 'Enter' || ev.key === ' ') && I.onGroupChosen) {
            ev.preventDefault();
            I.onGroupChosen(g.name);
          }
        }},
      h('title', {text: summary}),
      h('rect', {x: pos.x, y: pos.y, width: BOX_W, height: pos.h, rx: 8,
        class: 'box'}),
      lines));
    });
    svg.appendChild(boxLayer);
    I.clear(container).appendChild(svg);
    return layout;
  };
})(window.Ironside);
