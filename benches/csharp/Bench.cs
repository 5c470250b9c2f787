// What the C# binding's calls cost on Mono: time and managed bytes allocated per call, for
// accepted and refused calls (run by `cargo bench --bench csharp_calls`).
// Usage: mono bench.exe <model.xml> [rounds]
using System;
using System.Collections.Generic;
using System.Diagnostics;
using MjBridge;

static class Bench
{
    static double Median(List<double> v)
    {
        v.Sort();
        return v[v.Count / 2];
    }

    static int Main(string[] args)
    {
        string model = args[0];
        int rounds = args.Length > 1 ? int.Parse(args[1]) : 9;
        string cfg = "{\"model\":{\"xml_path\":" + Json.String(new System.Text.StringBuilder(), model) +
                     "},\"frame\":[\"qpos\",\"qvel\",\"ctrl\",\"sensordata\"]}";
        using (var ep = Endpoint.Open(cfg))
        using (var stopped = Endpoint.Open(cfg))
        {
            stopped.Stop();
            ModelDims d = ep.Dims();
            var obs = new[] { Field.Qpos, Field.Qvel, Field.Sensordata };
            var bufs = new[] { new double[d.Nq], new double[d.Nv], new double[d.Nsensordata] };
            var ctrl = new double[d.Nu];
            var nan = new double[d.Nu];
            if (nan.Length > 0) nan[0] = double.NaN;
            var st = ep.Stepper(obs, new[] { new double[d.Nq], new double[d.Nv], new double[d.Nsensordata] });
            var reader = ep.FrameReader(obs, new[] { new double[d.Nq], new double[d.Nv], new double[d.Nsensordata] });
            var calls = new List<KeyValuePair<string, Action>>
            {
                new KeyValuePair<string, Action>("Step(0) accepted (the call alone)", () => ep.Step(0)),
                new KeyValuePair<string, Action>("Step(0) refused: stop latched", () => stopped.Step(0)),
                new KeyValuePair<string, Action>("Step(1) accepted", () => ep.Step(1)),
                new KeyValuePair<string, Action>("CtrlStep(ctrl, 1) accepted", () => ep.CtrlStep(ctrl, 1)),
                new KeyValuePair<string, Action>("CtrlStep refused: NaN", () => ep.CtrlStep(nan, 1)),
                new KeyValuePair<string, Action>("Stepper.Step() (ctrl, step 1, 3 fields)", () => st.Step()),
                new KeyValuePair<string, Action>("ReadFrame(Field[], double[][])", () => ep.ReadFrame(obs, bufs)),
                new KeyValuePair<string, Action>("FrameReader.Read()", () => reader.Read()),
                new KeyValuePair<string, Action>("refused Step(0) + Result.Detail read", () => { var r = stopped.Step(0); var x = r.Detail; }),
            };
            int n = 5000;
            var times = new Dictionary<string, List<double>>();
            var bytes = new Dictionary<string, double>();
            foreach (var c in calls)
            {
                for (int i = 0; i < n / 5; i++) c.Value(); // warm
                times[c.Key] = new List<double>();
            }
            for (int r = 0; r < rounds; r++)
            {
                for (int k = 0; k < calls.Count; k++)
                {
                    var c = calls[(k + r) % calls.Count];
                    long b0 = GC.GetAllocatedBytesForCurrentThread();
                    var sw = Stopwatch.StartNew();
                    for (int i = 0; i < n; i++) c.Value();
                    sw.Stop();
                    long b1 = GC.GetAllocatedBytesForCurrentThread();
                    times[c.Key].Add(sw.Elapsed.TotalMilliseconds * 1000.0 / n);
                    bytes[c.Key] = (double)(b1 - b0) / n;
                }
            }
            Console.WriteLine("model {0}: nq {1}, nv {2}, nu {3}, nsensordata {4}; Mono {5}; {6} rounds of {7} calls",
                              System.IO.Path.GetFileName(model), d.Nq, d.Nv, d.Nu, d.Nsensordata,
                              Environment.Version, rounds, n);
            Console.WriteLine("| call | µs per call | managed bytes per call |");
            Console.WriteLine("| --- | --- | --- |");
            foreach (var c in calls)
                Console.WriteLine("| {0} | {1:F2} | {2:F0} |", c.Key, Median(times[c.Key]), bytes[c.Key]);
            st.Dispose();
            reader.Dispose();
        }
        return 0;
    }
}
