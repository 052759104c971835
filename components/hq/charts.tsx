/**
 * Charts drawn on the server as inline SVG (docs/trends.md "Charts"): no chart library, no script. Each
 * chart is an image (`role="img"`) named by its <title> and described by its <desc>; its numbers are in the
 * table the page puts after it, which is what a screen reader reads. The series differ by colour and by
 * line dash or bar position, so none is told apart by colour alone.
 */
import type { ComponentChildren } from "preact";

/** A linear map from `domain` to `range` (domain of zero width: every value to the range's start). */
export function linearScale(domain: [number, number], range: [number, number]): (v: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0;
  return (v) => span === 0 ? r0 : r0 + (v - d0) / span * (r1 - r0);
}

/** A round step (1, 2 or 5 times a power of ten) giving at most `count` steps up to `max` (> 0). */
export function niceStep(max: number, count: number): number {
  const raw = max / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

/**
 * The value axis' ticks: 0, a round step, … up to the first tick at or above `max`; for a `max` of 0 or
 * less, 0 and 1 (an empty chart still has an axis).
 */
export function axisTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const step = niceStep(max, count);
  const ticks = [0];
  while (ticks[ticks.length - 1] < max) ticks.push(round(ticks.length * step));
  return ticks;
}

/** Floating-point dust off a tick (0.30000000000000004 → 0.3). */
const round = (x: number) => Number(x.toPrecision(12));

/** Which of `n` category labels to print along an axis so that at most `max` show: every k-th. */
export function labelEvery(n: number, max: number): number {
  return Math.max(1, Math.ceil(n / Math.max(1, max)));
}

export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Horizontal grouped bars: category `i`'s band starts at `top + i * band`, its series' bars stacked inside
 * it, each `barHeight` tall, from `left` to the value's place on `scale`.
 */
export function groupedBars(
  values: number[][],
  o: { top: number; left: number; band: number; barHeight: number; scale: (v: number) => number },
): Bar[][] {
  return values.map((row, i) =>
    row.map((v, s) => ({
      x: o.left,
      y: o.top + i * o.band + s * o.barHeight,
      width: Math.max(0, o.scale(v) - o.left),
      height: o.barHeight,
    }))
  );
}

export interface Series {
  label: string;
  values: number[];
}

/** Series colours (Tailwind sky-700, amber-700, emerald-700, fuchsia-700: 4.5:1 or more on white). */
const COLOURS = ["#0369a1", "#b45309", "#047857", "#a21caf"];
const DASHES = ["", "6 3", "2 3", "8 3 2 3"];

const fmt = (v: number) => String(round(v));

interface ChartText {
  /** The id the <title> and <desc> derive theirs from (unique on the page). */
  id: string;
  title: string;
  desc: string;
}

function Legend({ series, x, y }: { series: Series[]; x: number; y: number }) {
  return (
    <g>
      {series.map((s, i) => (
        <g key={s.label} transform={`translate(${x + i * 170},${y})`}>
          <line
            x1={0}
            y1={0}
            x2={24}
            y2={0}
            stroke={COLOURS[i % COLOURS.length]}
            stroke-width={3}
            stroke-dasharray={DASHES[i % DASHES.length] || undefined}
          />
          <text x={30} y={4} font-size={12} fill="#1e293b">{s.label}</text>
        </g>
      ))}
    </g>
  );
}

const WIDTH = 760;

/** A chart's SVG: its accessible name and description (the title and desc elements) and its legend. */
function ChartFrame(
  { id, title, desc, height, series, left, children }: ChartText & {
    height: number;
    series: Series[];
    left: number;
    children: ComponentChildren;
  },
) {
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      class="h-auto w-full max-w-4xl"
      data-chart={id}
    >
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{desc}</desc>
      <Legend series={series} x={left} y={14} />
      {children}
    </svg>
  );
}

/** A line per series over the categories (dates), values from 0 up. */
export function LineChart(
  { id, title, desc, labels, series }: ChartText & { labels: string[]; series: Series[] },
) {
  const height = 300;
  const [left, right, top, bottom] = [48, WIDTH - 16, 36, height - 40];
  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const ticks = axisTicks(max);
  const y = linearScale([0, ticks[ticks.length - 1]], [bottom, top]);
  const x = linearScale([0, Math.max(1, labels.length - 1)], [left, right]);
  const every = labelEvery(labels.length, 8);
  return (
    <ChartFrame id={id} title={title} desc={desc} height={height} series={series} left={left}>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={left} x2={right} y1={y(t)} y2={y(t)} stroke="#e2e8f0" />
          <text x={left - 6} y={y(t) + 4} font-size={11} text-anchor="end" fill="#334155">{fmt(t)}</text>
        </g>
      ))}
      {labels.map((l, i) =>
        i % every === 0
          ? (
            <text key={l} x={x(i)} y={bottom + 18} font-size={11} text-anchor="middle" fill="#334155">
              {l}
            </text>
          )
          : null
      )}
      <line x1={left} x2={right} y1={bottom} y2={bottom} stroke="#64748b" />
      {series.map((s, i) => (
        <polyline
          key={s.label}
          fill="none"
          stroke={COLOURS[i % COLOURS.length]}
          stroke-width={2}
          stroke-dasharray={DASHES[i % DASHES.length] || undefined}
          points={s.values.map((v, j) => `${fmt(x(j))},${fmt(y(v))}`).join(" ")}
          data-series={s.label}
        />
      ))}
    </ChartFrame>
  );
}

/** Horizontal bars: one band per category (a shop, a driver), one bar per series in it. */
export function BarChart(
  { id, title, desc, labels, series }: ChartText & { labels: string[]; series: Series[] },
) {
  const barHeight = 10;
  const band = series.length * barHeight + 12;
  const [left, right, top] = [170, WIDTH - 40, 36];
  const height = top + Math.max(1, labels.length) * band + 28;
  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const ticks = axisTicks(max);
  const x = linearScale([0, ticks[ticks.length - 1]], [left, right]);
  const values = labels.map((_, i) => series.map((s) => s.values[i] ?? 0));
  const bars = groupedBars(values, { top, left, band, barHeight, scale: x });
  const bottom = height - 24;
  return (
    <ChartFrame id={id} title={title} desc={desc} height={height} series={series} left={left}>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={top - 4} y2={bottom} stroke="#e2e8f0" />
          <text x={x(t)} y={bottom + 16} font-size={11} text-anchor="middle" fill="#334155">{fmt(t)}</text>
        </g>
      ))}
      {labels.map((l, i) => (
        <text
          key={`${i}-${l}`}
          x={left - 8}
          y={top + i * band + band / 2}
          font-size={12}
          text-anchor="end"
          fill="#1e293b"
        >
          {l.length > 24 ? `${l.slice(0, 23)}…` : l}
        </text>
      ))}
      {bars.map((row, i) =>
        row.map((b, s) => (
          <rect
            key={`${i}-${s}`}
            x={fmt(b.x)}
            y={fmt(b.y)}
            width={fmt(b.width)}
            height={b.height}
            fill={COLOURS[s % COLOURS.length]}
          />
        ))
      )}
      <line x1={left} x2={left} y1={top - 4} y2={bottom} stroke="#64748b" />
    </ChartFrame>
  );
}
