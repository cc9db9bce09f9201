package dev.logship.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns the benchmark's results (JMH's CSV files, one per thread count, and the
 * {@code bench.stats} lines) into the Markdown tables of docs/performance.md: ops/s per
 * appender and thread count for {@code appender} and {@code end2end}, Logship's ratio to
 * RandomAccessFile, and what became of Logship's events. Exits 1 when a result is missing, or
 * when a Logship trial delivered nothing or the intake counted other than it delivered.
 *
 * <p>Usage: {@code Report STATS CSV...}
 */
public final class Report {
    private static final String[] TYPES = {"File", "RAF", "MMap", "Http", "Logship"};

    private Report() {}

    /** Prints the tables to stdout. */
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: Report STATS CSV...");
            System.exit(2);
        }
        // benchmark -> threads -> type -> ops/s
        Map<String, TreeMap<Integer, Map<String, Double>>> scores = new LinkedHashMap<>();
        scores.put("appender", new TreeMap<>());
        scores.put("end2end", new TreeMap<>());
        for (int i = 1; i < args.length; i++) {
            List<String> lines = Files.readAllLines(Paths.get(args[i]), StandardCharsets.UTF_8);
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                List<String> f = csv(line);
                if (f.size() < 8) {
                    continue;
                }
                String bench = f.get(0).substring(f.get(0).lastIndexOf('.') + 1);
                int threads = Integer.parseInt(f.get(2));
                double score = Double.parseDouble(f.get(4));
                String type = f.get(7);
                scores.computeIfAbsent(bench, b -> new TreeMap<>())
                        .computeIfAbsent(threads, t -> new LinkedHashMap<>()).put(type, score);
            }
        }
        boolean complete = true;
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, TreeMap<Integer, Map<String, Double>>> b : scores.entrySet()) {
            out.append("\n`").append(b.getKey()).append("`, ops/s:\n\n| threads |");
            for (String t : TYPES) {
                out.append(' ').append(t).append(" |");
            }
            out.append(" Logship / RAF |\n|---:|");
            for (int i = 0; i <= TYPES.length; i++) {
                out.append("---:|");
            }
            out.append('\n');
            for (Map.Entry<Integer, Map<String, Double>> row : b.getValue().entrySet()) {
                out.append("| ").append(row.getKey()).append(" |");
                for (String t : TYPES) {
                    Double s = row.getValue().get(t);
                    complete &= s != null;
                    out.append(' ').append(s == null ? "-" : String.format("%,.0f", s)).append(" |");
                }
                Double l = row.getValue().get("Logship");
                Double r = row.getValue().get("RAF");
                out.append(' ').append(l == null || r == null || r == 0 ? "-" : String.format("%.2f", l / r))
                        .append(" |\n");
            }
        }
        out.append("\nLogship's events per trial (warm-up and measurement; the intake's count and the appender's")
                .append(" counters after its stop):\n\n")
                .append("| benchmark | threads | intake received | taken | delivered | dropped (queue full) | lost | spilled |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        List<String[]> stats = new ArrayList<>();
        Path statsFile = Paths.get(args[0]);
        if (Files.exists(statsFile)) {
            for (String line : Files.readAllLines(statsFile, StandardCharsets.UTF_8)) {
                String[] f = line.split("\t");
                if (f.length >= 9 && f[1].equals("Logship")) {
                    stats.add(f);
                }
            }
        }
        complete &= !stats.isEmpty();
        boolean truthful = true;
        for (String[] f : stats) {
            // What the intake counted must be what the appender says it delivered.
            truthful &= f[3].equals(f[5]) && !f[5].equals("0");
            out.append("| ").append(f[0]).append(" | ").append(f[2]);
            for (int i = 3; i < 9; i++) {
                out.append(" | ").append(number(f[i]));
            }
            out.append(" |\n");
        }
        System.out.print(out);
        if (!complete) {
            System.err.println("Report: some results are missing (see the JMH output above)");
            System.exit(1);
        }
        if (!truthful) {
            System.err.println("Report: a Logship trial delivered nothing, or the intake's count differs from"
                    + " the appender's delivered count (see the table)");
            System.exit(1);
        }
    }

    private static String number(String s) {
        try {
            return String.format("%,d", Long.parseLong(s));
        } catch (NumberFormatException e) {
            return s;
        }
    }

    /** One CSV line of JMH's (fields quoted when they hold a comma or quote). */
    private static List<String> csv(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        fields.add(cur.toString());
        return fields;
    }
}
