// How far V8 lets the old generation grow past what survived its last full collection.
// V8 picks a factor of up to 4x for a process that allocates fast and collects quickly, which
// a gateway under load is: at 200 connections the old space reached 100-140 MB, mostly
// garbage (request objects promoted while in flight), before V8 collected it, for a peak RSS
// of 262-279 MB. At 2.5x the old space peaks at 74-85 MB and the process at 215-222 MB with
// the same CPU per request; at 2x it peaks at ~200 MB but costs ~6% more CPU at 200
// connections (bench/profile runs alternated with the unchanged build, 2026-11-25).
//
// The flag is read each time V8 computes the next collection's limit, so setting it at start
// takes effect (measured: the old-space peaks above). It cannot be given on the command line
// instead: `node` is started by the bin script, and NODE_OPTIONS refuses it. Long-lived
// processes only (serve, worker); a CLI command ends before it would matter.
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to at most 1 + percent/100 times its live size. */
export const heapGrowingPercent = 150;

export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
}

/**
 * The young generation's growth factor while serving (V8's default). bin/gateway sets it to 1
 * before loading anything: loading the modules and opening the services allocate fast enough
 * that V8 would otherwise grow the young generation to its maximum (two 16 MB semi-spaces),
 * and a quiet server keeps that for minutes — 22 MB of a default `serve`'s idle RSS
 * (docs/performance.md, "Idle memory"). Once the process serves, it grows again as load
 * asks, where a larger young generation saves scavenges.
 */
export const servingSemiSpaceGrowthFactor = 2;

export function allowYoungGenerationGrowth(): void {
  setFlagsFromString(`--semi-space-growth-factor=${servingSemiSpaceGrowthFactor}`);
}
