/* Where each canvas label of a drawing goes (components/graph_view.py inlines this file into every drawing; the
   unit tests run it with node: tests/app/test_label_place.py). Pure: no DOM, no vis-network.

   items   the labelled nodes, most important first: {id, x, y, r, w, h, gap, must, keep}; (x, y) the node's centre, r its
           marker's half-size (a diamond's corners included), w × h the label's box, gap the space vis-network
           leaves between the node and a label drawn below it (its own place, moved by dx, dy from there);
   markers every drawn node's marker box {id, l, r, t, b}, labelled or not;
   lines   the highlighted (red, CEG) edges as segments [x1, y1, x2, y2] (a curved edge: several);
   pad     a margin kept around each label (canvas units).

   Returns {id: {dx, dy}} for the labels drawn (the box's move from its place below the node), in the order given;
   a label left out shows on hover only. The rule: a label covers no other label, no other node's marker and no
   highlighted edge. It goes below its node, else above, right or left of it; a node the step is about (``must``)
   also tries the spots around it further out, the nearest first. A node with no clear spot loses its canvas
   label, whatever it is: a label written over another node hid that node's colour and ring, and a red label
   across a green ring read as the ring's name (audits on the expansion drawing).
   A label must also say whose it is: its box at least MARGIN times nearer to its own node's centre than to any
   other labelled node's (two red diamonds' names stacked below-left of both read as one two-line label), no
   closer than a label height to another label (two flush labels read as one block), and no further from its node's
   marker than two label heights ("Laurence Fishburne" 100 px out, beside another node, was nobody's). A name the
   step is about (``must``) reaches three label heights and is measured against every node, named or not ("Keanu
   Reeves" beside a queue ring read as the ring's name); where its node is walled in, it may take a spot that fails
   the margin with a dashed leader line from its node (``lead``: the line's ends), one that crosses no other node,
   label or red edge, and never a spot MARGIN times nearer to another such name's node. Names the step is about
   that sit close together each try the side facing away from the others first (the upper-left one's name above
   or left of it, the lower-right one's below or right).
   Names the step is about are placed first, then the ``keep`` ones (the replay's other anchors, whose names a student
   looks for), then the rest. A ``must`` or ``keep`` name with no spot within three label heights looks all around
   its node out to FAR_OUT label heights, always with a leader line (a walled-in anchor, "Laurence Fishburne", went
   unlabelled); a leader line crosses no other node, label, leader or red edge, and the label at its end keeps a label
   height and a half from any other node's centre, or has none nearer than its own ("Ermengarde of Tours" sat
   between a pink and a blue diamond). A must or keep label with no leader sits within half a label height of
   vis-network's own place and points at its node: centred over or under it, or level with it beside it ("Boyz n the
   Hood", shifted up-left, floated above two diamonds). Where a must name is still left out, it is moved first and all
   are placed again, a few rounds, kept where more of them are placed. */
function egxPlaceLabels(items, markers, lines, pad) {
  var placed = [], leads = [], out = {};
  pad = pad || 0;

  function hits(a, b) { return a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b; }

  function crosses(box, s) {  // does segment s meet the box? (Liang–Barsky clipping)
    var x = s[0], y = s[1], dx = s[2] - x, dy = s[3] - y, t0 = 0, t1 = 1;
    var p = [-dx, dx, -dy, dy], q = [x - box.l, box.r - x, y - box.t, box.b - y];
    for (var i = 0; i < 4; i++) {
      if (p[i] === 0) { if (q[i] < 0) { return false; } continue; }
      var t = q[i] / p[i];
      if (p[i] < 0) { if (t > t1) { return false; } if (t > t0) { t0 = t; } }
      else { if (t < t0) { return false; } if (t < t1) { t1 = t; } }
    }
    return true;
  }

  function segs(a, b) {  // do two segments cross?
    function side(p, q, x, y) { return (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0]); }
    var a0 = [a[0], a[1]], a1 = [a[2], a[3]], b0 = [b[0], b[1]], b1 = [b[2], b[3]];
    return side(a0, a1, b[0], b[1]) * side(a0, a1, b[2], b[3]) < 0 && side(b0, b1, a[0], a[1]) * side(b0, b1, a[2], a[3]) < 0;
  }

  function clear(box, id, sep) {  // sep: the space kept to the other labels (two labels flush read as one)
    var grown = {l: box.l - pad, r: box.r + pad, t: box.t - pad, b: box.b + pad};
    var apart = {l: box.l - sep, r: box.r + sep, t: box.t - sep, b: box.b + sep};
    return !placed.some(function (o) { return hits(apart, o); }) &&
           !markers.some(function (m) { return m.id !== id && hits(grown, m); }) &&
           !lines.some(function (s) { return crosses(grown, s); }) &&
           !leads.some(function (s) { return crosses(grown, s); });  // nor across another name's leader line
  }

  var MARGIN = 1.5, FAR_OUT = 10;

  function reach(b, x, y) {  // from (x, y) to the box's nearest point: [across, down, distance]
    var ex = Math.max(b.l - x, 0, x - b.r), ey = Math.max(b.t - y, 0, y - b.b);
    return [ex, ey, Math.sqrt(ex * ex + ey * ey)];
  }

  // the side facing away from the other ``must`` nodes close by (within three label heights of its marker)
  function away(it) {
    var ax = 0, ay = 0;
    items.forEach(function (o) {
      if (o === it || !o.must) { return; }
      var vx = it.x - o.x, vy = it.y - o.y, n = Math.sqrt(vx * vx + vy * vy);
      if (n > 0 && n < it.r + o.r + 3 * Math.max(it.h, o.h)) { ax += vx / n; ay += vy / n; }
    });
    return (ax || ay) ? [ax, ay] : null;
  }

  var labelled = {};
  items.forEach(function (it) { labelled[it.id] = true; });

  // the spots of one label, those it may take first: ``ring`` (a name the step is about that found no spot within
  // three label heights) looks all around its node out to FAR_OUT label heights, every spot with a leader line
  function spotsOf(it, ring) {
    var own = markers.filter(function (m) { return m.id === it.id; })[0];
    var r = own ? Math.max(it.r, (own.b - own.t) / 2) : it.r, h = it.h, w = it.w, g = it.gap;
    var top = it.y + it.r + g;  // vis-network's place below the node
    function at(cx, cy) {  // the box centred on (cx, cy)
      return {l: cx - w / 2, r: cx + w / 2, t: cy - h / 2, b: cy + h / 2, dx: cx - it.x, dy: cy - (top + h / 2)};
    }
    var above = it.y - r - g - h / 2, side = r + g + w / 2;
    var spots = ring ? [] : [at(it.x, top + h / 2), at(it.x, above), at(it.x + side, it.y), at(it.x - side, it.y)];
    var kept = it.must || it.keep;
    if (kept && !ring) {  // further out
      var xs = [0, w / 4, w / 2, side, side + w / 4, side + w / 2];
      for (var k = -8; k <= 8; k++) {
        var cy = it.y + k * (h + 2) / 2;
        xs.forEach(function (dx) {
          [dx, -dx].forEach(function (sx, j) { if (j === 0 || dx > 0) { spots.push(at(it.x + sx, cy)); } });
        });
      }
    }
    if (ring) {  // all around, a label height further at a time
      for (var D = 3.5; D <= FAR_OUT; D += 0.5) {
        for (var a = 0; a < 24; a++) {
          var c = Math.cos(a * Math.PI / 12), s = Math.sin(a * Math.PI / 12);
          spots.push(at(it.x + c * (r + D * h + w / 2 * Math.abs(c)), it.y + s * (r + D * h + h / 2 * Math.abs(s))));
        }
      }
    }
    // a label further from its node than vis-network's own place below it (one label height of slack) floats: it
    // says whose it is with a leader line ("Boyz n the Hood" shifted up-left read as its neighbour's)
    var far = r + g + (kept ? 3 : 2) * h, floats = r + g + h / 2, turn = it.must ? away(it) : null;
    spots = spots.filter(function (b, i) {
      if ((ring || i >= 4) && own && hits(b, own)) { return false; }  // never over its own node
      var e = reach(b, it.x, it.y);
      b.d = e[2];
      b.far = b.d + (e[0] > 0 ? h / 2 : 0);  // beside costs a little more
      b.i = ring ? 4 + i : i;
      if (!ring && b.d > far) { return false; }
      // whose label is it? nearer to its own node than to any other by a clear margin
      b.near = Infinity;  // the nearest other node, as a share of the distance to its own: any node for a name the
      // step is about (or it takes a leader line), a named one for the others (a grey unnamed dot is not mistaken
      // for a name's owner)
      b.other = Infinity;  // the nearest other node's centre from the box
      markers.forEach(function (m) {
        if (m.id === it.id || !(kept || labelled[m.id])) { return; }
        var o = reach(b, (m.l + m.r) / 2, (m.t + m.b) / 2)[2];
        b.other = Math.min(b.other, o);
        b.near = Math.min(b.near, o / Math.max(b.d, 1));
      });
      // centred over or under its node, or level with it beside it: a label shifted along did not point at its node
      var aligned = Math.abs((b.l + b.r) / 2 - it.x) <= w / 6 || Math.abs((b.t + b.b) / 2 - it.y) <= h / 2;
      b.lead = ring || b.near < MARGIN || (kept && (b.d > floats || !aligned));
      if (!b.lead) { return true; }
      if (!kept) { return false; }
      // a must label with no such spot near its node takes a leader line to it, one that passes no other node
      b.px = Math.min(Math.max(it.x, b.l), b.r);
      b.py = Math.min(Math.max(it.y, b.t), b.b);
      var seg = [it.x, it.y, b.px, b.py];
      // a label at the end of a line is still not set between other nodes nearer to it than its own ("Ermengarde of
      // Tours" between a pink and a blue diamond): no other node nearer the box than its own, or, out at the end of
      // a long line, none within one and a half label heights
      if (b.other < Math.min(b.d, 1.5 * h + r)) { return false; }
      // the leader settles it against the nodes around, not against another node the step is about: not MARGIN
      // times nearer to one of those than to its own (a name beside the other red diamond, with a line across to
      // its own, read as the other's), and it crosses no red edge
      var named = !ring && items.some(function (o) {  // (out at the end of a long line: the space kept above)
        return o !== it && o.must && MARGIN * reach(b, o.x, o.y)[2] < b.d;
      });
      return !named && !lines.some(function (l) { return segs(l, seg); }) &&
             (ring === 2 || !leads.some(function (l) { return segs(l, seg); })) &&
             !markers.some(function (m) { return m.id !== it.id && crosses(m, seg); }) &&
             !placed.some(function (o) { return crosses(o, seg); });
    });
    if (turn) {  // the side away from the other must nodes first, then the nearest
      spots.forEach(function (b) {
        b.back = ((b.l + b.r) / 2 - it.x) * turn[0] + ((b.t + b.b) / 2 - it.y) * turn[1] > 0 ? 0 : 1;
      });
    }
    spots.sort(function (a, b) {  // a spot that needs no leader first; then the four usual ones in their order
      return (a.lead - b.lead) || (ring ? a.d - b.d : 0) || ((a.back || 0) - (b.back || 0)) ||
             (a.lead ? Math.round(4 * (b.near - a.near)) : 0) ||  // with a leader: the least near any other node
             ((a.i >= 4) - (b.i >= 4)) ||
             (a.i < 4 && b.i < 4 ? a.i - b.i : a.far - b.far);
    });
    return spots;
  }

  // the names the step is about first: a plain name placed before them took the spot an anchor's name needed
  // ("Laurence Fishburne", the best CEG's meeting node, went unlabelled)
  function run(order) {
    placed = []; leads = []; out = {};
    order.forEach(function (it) {
      var spot = null;
      [0, 1, 2].forEach(function (ring) {
        if (spot || (ring && !(it.must || it.keep))) { return; }
        var spots = spotsOf(it, ring);
        for (var i = 0; i < spots.length && !spot; i++) { if (clear(spots[i], it.id, it.h)) { spot = spots[i]; } }
      });
      if (!spot) { return; }
      placed.push(spot);
      out[it.id] = {dx: spot.dx, dy: spot.dy, l: spot.l, r: spot.r, t: spot.t, b: spot.b};
      if (spot.lead) {
        out[it.id].lead = [it.x, it.y, spot.px, spot.py]; out[it.id].near = spot.near;
        leads.push(out[it.id].lead);
      }
    });
    // how many it placed of the names the step is about (then which: the first given first), of the kept ones, of all
    var score = {must: [], n: 0, keep: 0, all: Object.keys(out).length};
    items.forEach(function (it) {
      if (it.must) { score.must.push(out[it.id] ? 1 : 0); score.n += out[it.id] ? 1 : 0; }
      else if (it.keep && out[it.id]) { score.keep += 1; }
    });
    return {out: out, score: score};
  }
  function better(a, b) {
    if (a.score.n !== b.score.n) { return a.score.n - b.score.n; }
    for (var k = 0; k < a.score.must.length; k++) {
      if (a.score.must[k] !== b.score.must[k]) { return a.score.must[k] - b.score.must[k]; }
    }
    return a.score.keep - b.score.keep || a.score.all - b.score.all;
  }
  var order = items.filter(function (it) { return it.must; }).concat(
    items.filter(function (it) { return !it.must && it.keep; }), items.filter(function (it) { return !it.must && !it.keep; }));
  var best = run(order), tried = {};
  // a name the step is about left without a spot goes first and all are placed again, kept where that places more
  // of them, or the earlier given (the names placed before it had walled it in); then a kept one; a few rounds
  for (var round = 0; round < 6; round++) {
    var lost = order.filter(function (it) { return it.must && !best.out[it.id] && !tried[it.id]; })[0] ||
               order.filter(function (it) { return it.keep && !best.out[it.id] && !tried[it.id]; })[0];
    if (!lost) { break; }
    tried[lost.id] = true;
    var again = [lost].concat(order.filter(function (it) { return it !== lost; }));
    var got = run(again);
    if (better(got, best) > 0) { best = got; order = again; }
  }
  out = best.out;
  var ordered = {};  // in the order given
  items.forEach(function (it) { if (out[it.id]) { ordered[it.id] = out[it.id]; } });
  return ordered;
}

if (typeof module !== "undefined") { module.exports = {egxPlaceLabels: egxPlaceLabels}; }
