/**
 * How each language's samples are run, and with what: the runtimes Debian 12 packages (installed by .ci/run's
 * "sample runtimes" block) and the command for one sample file. test/docs/samples-run.test.ts runs every sample
 * with these against the local sandbox; the published docs name the languages listed here as executed, with the
 * runtime that ran them. A language of SAMPLE_LANGUAGES that is not here is shown and not claimed as run.
 */
import { existsSync } from "node:fs";
import { SOURCE_NODE_ARGS } from "../source.ts";

export interface SampleRuntime {
  /** The sample language's label (`SampleLanguage.label`). */
  label: string;
  /** What runs it, as the docs name it. */
  runtime: string;
  /** Debian packages that bring the runtime and the libraries the samples use. */
  debianPackages: readonly string[];
  /** Files that must exist for it to run (the check before running, and the message when one is missing). */
  needs: readonly string[];
  /** The compile step, where the language has one (run once, in `file`'s folder, before any run). */
  build?(file: string): Command;
  /** The command that runs `file` with `args`; `repoRoot` is for the TypeScript sample, which imports the client. */
  run(file: string, args: readonly string[], repoRoot: string): Command;
}

export interface Command {
  command: string;
  args: string[];
}

const JACKSON_JARS = ["jackson-databind", "jackson-core", "jackson-annotations"].map(
  (name) => `/usr/share/java/${name}.jar`,
);
const JSON_NET_DLL = "/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll";

export const SAMPLE_RUNTIMES: readonly SampleRuntime[] = [
  {
    label: "TypeScript",
    runtime: "Node.js 24 (its own type stripping), this repository's client",
    debianPackages: [],
    needs: [],
    run: (file, args) => ({ command: process.execPath, args: [...SOURCE_NODE_ARGS, file, ...args] }),
  },
  {
    label: "curl",
    runtime: "curl and bash (openssl for the signed delivery)",
    debianPackages: ["curl", "openssl"],
    needs: ["/usr/bin/curl", "/usr/bin/openssl"],
    run: (file, args) => ({ command: "bash", args: [file, ...args] }),
  },
  {
    label: "Python",
    runtime: "Python 3.11 (python3)",
    debianPackages: ["python3"],
    needs: [],
    run: (file, args) => ({ command: "python3", args: [file, ...args] }),
  },
  {
    label: "Java",
    runtime: "OpenJDK 17, single-file launch, Jackson 2.14",
    debianPackages: ["openjdk-17-jdk-headless", "libjackson2-databind-java"],
    needs: ["/usr/bin/java", ...JACKSON_JARS],
    // Single-file source launch: `java` compiles the file in memory on each run, as a reader would run it.
    // The JVM flags only make a short run start sooner (the C1 compiler alone, the serial collector): measured
    // here, half the wall time of a sample's compile and run; the program is the same.
    run: (file, args) => ({
      command: "java",
      args: ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", JACKSON_JARS.join(":"), file, ...args],
    }),
  },
  {
    label: "Go",
    runtime: "Go 1.19 (golang-go), gofmt-checked",
    debianPackages: ["golang-go"],
    needs: ["/usr/bin/go"],
    // `go run` in two steps, so a sample run several times compiles once.
    build: (file) => ({ command: "go", args: ["build", "-o", file.replace(/\.go$/, ""), file] }),
    run: (file, args) => ({ command: file.replace(/\.go$/, ""), args: [...args] }),
  },
  {
    label: "C#",
    runtime: "Mono 6.8 (mcs and mono), Json.NET 5",
    debianPackages: [
      "mono-mcs",
      "mono-runtime",
      "libmono-system-net-http4.0-cil",
      "libmono-system-runtime-serialization4.0-cil",
      "libnewtonsoft-json5.0-cil",
    ],
    needs: ["/usr/bin/mcs", "/usr/bin/mono", JSON_NET_DLL],
    build: (file) => ({
      command: "mcs",
      args: ["-r:System.Net.Http.dll", `-r:${JSON_NET_DLL}`, `-out:${file.replace(/\.cs$/, ".exe")}`, file],
    }),
    run: (file, args) => ({ command: "mono", args: [file.replace(/\.cs$/, ".exe"), ...args] }),
  },
  {
    label: "PHP",
    runtime: "PHP 8.2 (php-cli, php-curl)",
    debianPackages: ["php-cli", "php-curl"],
    needs: ["/usr/bin/php"],
    run: (file, args) => ({ command: "php", args: [file, ...args] }),
  },
  {
    label: "Ruby",
    runtime: "Ruby 3.1 (ruby)",
    debianPackages: ["ruby"],
    needs: ["/usr/bin/ruby"],
    run: (file, args) => ({ command: "ruby", args: [file, ...args] }),
  },
];

/** The files a runtime needs that this machine lacks (empty: it can run here). */
export function missingForRuntime(runtime: SampleRuntime): string[] {
  return runtime.needs.filter((file) => !existsSync(file));
}
