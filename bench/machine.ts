/** The machine a run happened on, for the head of bench/RESULTS.md. */
import os from "node:os";

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  /** ISO 8601, UTC. */
  date: string;
  /** 1, 5 and 15 minute load averages when the run started: a busy machine makes every figure noisy. */
  loadAverage: [number, number, number];
}

export function machineInfo(now: Date = new Date()): MachineInfo {
  const cpus = os.cpus();
  const [one = 0, five = 0, fifteen = 0] = os.loadavg();
  return {
    cpuModel: cpus[0]?.model.trim() || "unknown",
    cores: os.availableParallelism?.() ?? cpus.length,
    memoryGiB: os.totalmem() / 2 ** 30,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    date: now.toISOString(),
    loadAverage: [one, five, fifteen],
  };
}
