// The C# binding as a Unity project gets it from the package: Runtime/*.cs compiled into the
// MjBridge assembly, the native libraries from Runtime/Plugins/Linux/x86_64 (tests/
// engine_packages.rs maps "mjbridge" there, nothing on LD_LIBRARY_PATH). Open, step, checkpoint,
// restore, a refusal that changes nothing, the log callback (a capturing handler, and one that
// throws), MuJoCo's engine plugins from the package, and which files the process mapped.
//   mono package_host.exe <tests/models folder> <package mujoco_plugin folder>
// Prints "package-host: all checks passed" and exits 0, or names the failed check and exits 1.
using System;
using System.Collections.Generic;
using System.IO;
using MjBridge;

static class PackageHost
{
    static void Check(bool cond, string what)
    {
        if (!cond) throw new Exception("check failed: " + what);
    }

    static string Hash(Endpoint ep)
    {
        string w = ep.World();
        int i = w.IndexOf("\"state_hash\":\"", StringComparison.Ordinal);
        return w.Substring(i, w.IndexOf('"', i + 14) - i);
    }

    static int Main(string[] args)
    {
        try
        {
            Run(args[0], args[1]);
        }
        catch (Exception e)
        {
            Console.WriteLine("package-host: " + e);
            return 1;
        }
        Console.WriteLine("package-host: all checks passed");
        return 0;
    }

    static void Run(string models, string enginePlugins)
    {
        Console.WriteLine("package-host: mjbridge " + Bridge.Version);
        Check(Bridge.Version == Constants.Version, "the library is this binding's release");
        var seen = new List<string>();
        // A handler that captures: the binding hands native code its own static callback.
        Bridge.SetLogCallback((level, message) => { lock (seen) seen.Add(level + " " + message); }, LogLevel.Info);
        Check(Bridge.HasLogCallback, "log callback set");
        using (var ep = Endpoint.Open(Config.FromPath(Path.Combine(models, "pendulum.xml"))))
        {
            Check(ep.Step(40).Ok, "step");
            string checkpoint = ep.Checkpoint();
            string at40 = Hash(ep);
            Check(ep.Step(25).Ok, "step on");
            Check(Hash(ep) != at40, "the state moved");
            Result r = ep.Restore(checkpoint);
            Check(r.Ok && r.Report.TickBefore == 65 && r.Report.TickAfter == 40, "restored to tick 40");
            Check(Hash(ep) == at40, "the world is back bit for bit");
            Console.WriteLine("package-host: restored tick 65 -> 40");

            Result refused = ep.Restore("{\"profile\":1}");
            Check(!refused.Ok && refused.Outcome == Outcome.Rejected, "a non-checkpoint is refused");
            Check(Hash(ep) == at40, "the refusal changed nothing");
            lock (seen) Check(seen.Exists(s => s.StartsWith("Info ") && s.Contains("refused")), "the refusal reached the handler");

            // An exception in the handler stays in the binding's callback.
            Bridge.SetLogCallback((level, message) => { throw new InvalidOperationException("handler"); }, LogLevel.Info);
            Check(!ep.Restore("{\"profile\":2}").Ok, "refused with a throwing handler");
            Check(Hash(ep) == at40, "still unchanged");
        }
        Bridge.SetLogCallback(null);
        Check(!Bridge.HasLogCallback, "log callback removed");

        ulong[] loaded = Bridge.PluginLoadDir(enginePlugins);
        Console.WriteLine("package-host: engine plugins: " + loaded[0] + " libraries, " + loaded[1] + " plugins");
        Check(loaded[0] >= 1 && loaded[1] >= 1, "MuJoCo's engine plugins load from the package");
        using (var ep = Endpoint.Open(Config.FromPath(Path.Combine(models, "pid_plugin.xml"))))
        {
            Check(ep.Step(10).Ok, "a model that needs an engine plugin steps");
        }

        // The files this process mapped for the bridge and MuJoCo.
        var mapped = new HashSet<string>();
        foreach (string line in File.ReadAllLines("/proc/self/maps"))
        {
            int slash = line.IndexOf('/');
            if (slash < 0) continue;
            string path = line.Substring(slash);
            string name = Path.GetFileName(path);
            if ((name.StartsWith("libmjbridge") || name.StartsWith("libmujoco") || name.StartsWith("libactuator")) &&
                mapped.Add(path))
                Console.WriteLine("mapped: " + path);
        }
    }
}
