// The C# binding against the real library and MuJoCo, on Mono (run by tests/install.rs against
// an installed prefix). Usage: mono tests.exe <folder of tests/models>
// Each test is a method named after its promise; the last line is "N passed, M failed".
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Threading;
using MjBridge;

static class Tests
{
    static string models;

    static string Config(string model, string extra = "")
    {
        return "{\"model\":{\"xml_path\":\"" + Path.Combine(models, model) + "\"},\"seed\":3" + extra + "}";
    }

    static void Check(bool cond, string what)
    {
        if (!cond) throw new Exception("check failed: " + what);
    }

    static void Equal<T>(T want, T got, string what)
    {
        if (!EqualityComparer<T>.Default.Equals(want, got))
            throw new Exception(what + ": want " + want + ", got " + got);
    }

    static string Hash(Endpoint ep)
    {
        string w = ep.World();
        int i = w.IndexOf("\"state_hash\":\"", StringComparison.Ordinal);
        return w.Substring(i);
    }

    // --- the tests ---

    static void LibraryVersionMatchesTheBinding()
    {
        Equal(Constants.Version, Bridge.Version, "version");
        Check(Bridge.BuildInfo().Contains("\"engine_runtime_version\""), "build info");
    }

    static void EveryDllImportResolvesInTheLibrary()
    {
        foreach (MethodInfo m in typeof(Native).GetMethods(BindingFlags.Public | BindingFlags.Static))
            if (m.GetCustomAttributes(typeof(DllImportAttribute), false).Length > 0)
                Marshal.Prelink(m); // EntryPointNotFoundException when the library lacks it
    }

    static void OpenStepCheckpointRestoreRoundTrip()
    {
        using (var ep = Endpoint.Open(Config("pendulum.xml")))
        {
            Result r = ep.Step(40);
            Check(r.Ok && r.Detail == null, "step ok");
            Equal(0UL, r.Report.TickBefore, "tick before");
            Equal(40UL, r.Report.TickAfter, "tick after");
            string checkpoint = ep.Checkpoint();
            string atCheckpoint = ep.World();
            Equal(atCheckpoint, ep.Snapshot(), "snapshot equals world");
            Check(ep.Step(13).Ok, "step on");
            Check(ep.World() != atCheckpoint, "world moved");
            r = ep.Restore(checkpoint);
            Check(r.Ok, "restore ok");
            Equal(53UL, r.Report.TickBefore, "restore tick before");
            Equal(40UL, r.Report.TickAfter, "restore tick after");
            Equal(atCheckpoint, ep.World(), "world after restore");
            // UTF-8 bytes in, as well as strings.
            ep.Step(2);
            Check(ep.Restore(System.Text.Encoding.UTF8.GetBytes(checkpoint)).Ok, "restore bytes");
            Equal(atCheckpoint, ep.World(), "world after byte restore");
        }
    }

    static void RefusedDocumentCarriesReasonAndPointerAndChangesNothing()
    {
        using (var ep = Endpoint.Open(Config("pendulum.xml")))
        {
            ep.Step(10);
            string checkpoint = ep.Checkpoint();
            ep.Step(5);
            string before = ep.World();
            SafetyState sBefore = ep.Safety();
            Result r = ep.Restore(checkpoint.Replace("\"seed\":3", "\"seed\":4"));
            Equal(Outcome.Rejected, r.Outcome, "outcome");
            Equal(Reason.Seed, r.Reason, "reason");
            Equal("/seed", r.Detail.Pointer, "pointer");
            Equal(Outcome.Rejected, r.Detail.Outcome, "detail outcome");
            Equal(Reason.Seed, r.Detail.Reason, "detail reason");
            Equal(15UL, r.Report.TickAfter, "tick unchanged");
            Equal(before, ep.World(), "world unchanged");
            SafetyState sAfter = ep.Safety();
            Equal(sBefore.StopCount, sAfter.StopCount, "stop count");
            Equal(sBefore.Fenced, sAfter.Fenced, "fence");
            bool threw = false;
            try { r.EnsureOk(); }
            catch (MjbException e) { threw = e.Reason == Reason.Seed && e.Pointer == "/seed"; }
            Check(threw, "EnsureOk throws with reason and pointer");

            r = ep.Restore(checkpoint.Replace("\"qpos\":[", "\"qpos\":\"x\",\"unused\":["));
            Equal(Outcome.Rejected, r.Outcome, "malformed outcome");
            Check(r.Detail.Pointer != null, "malformed pointer");
            Equal(before, ep.World(), "world unchanged after second refusal");
        }
    }

    static void OpenRefusalThrowsWithModelLoadReason()
    {
        try
        {
            Endpoint.Open(Config("broken.xml")).Dispose();
        }
        catch (MjbException e)
        {
            Equal(Outcome.Rejected, e.Outcome, "outcome");
            Equal(Reason.ModelLoad, e.Reason, "reason");
            Equal("/model", e.Pointer, "pointer");
            Check(e.Detail.Message.Contains("no_such_joint"), "message names the joint");
            return;
        }
        throw new Exception("open of a broken model did not throw");
    }

    static void Utf8InAndOut()
    {
        string name = "Zo\u00eb \u6a5f\u68b0 \U0001F916 \"quoted\"";
        string escaped = name.Replace("\"", "\\\"");
        using (var ep = Endpoint.Open(Config("pendulum.xml", ",\"name\":\"" + escaped + "\"")))
            Check(ep.World().Contains("\"name\":\"" + escaped + "\""), "name round trip");
        try
        {
            Endpoint.Open(new byte[] { (byte)'{', 0xff, (byte)'}' });
            throw new Exception("bad UTF-8 accepted");
        }
        catch (MjbException e)
        {
            Equal(Outcome.InvalidArgument, e.Outcome, "bad utf8 outcome");
            Equal(Reason.InvalidUtf8, e.Reason, "bad utf8 reason");
        }
    }

    static void SetCtrlWritesAndRefusesAWrongLengthWithoutWriting()
    {
        using (var ep = Endpoint.Open(Config("pendulum.xml")))
        {
            Check(ep.SetCtrl(new[] { 0.25 }).Ok, "set ctrl");
            Check(ep.World().Contains("\"ctrl\":[0.25]"), "ctrl served");
            string h = Hash(ep);
            Result r = ep.SetCtrl(new[] { 1.0, 2.0 });
            Equal(Outcome.Rejected, r.Outcome, "outcome");
            Equal(Reason.Dimension, r.Reason, "reason");
            r = ep.SetCtrl(new[] { double.NaN });
            Equal(Outcome.Rejected, r.Outcome, "nan outcome");
            Equal(h, Hash(ep), "state unchanged");
        }
    }

    static void StopFromASecondThreadHaltsStepping()
    {
        using (var ep = Endpoint.Open(Config("contact_act.xml")))
        {
            var stepped = new ManualResetEvent(false);
            SafetyState latched = default(SafetyState);
            var stopper = new Thread(() => { stepped.WaitOne(); latched = ep.Stop(); });
            stopper.Start();
            Result r;
            try
            {
                while (true)
                {
                    r = ep.Step(20);
                    stepped.Set();
                    if (r.Reason == Reason.StopLatched) break; // halted (Ok) or refused (Rejected)
                    Check(r.Ok, "step ok until the stop");
                }
            }
            finally
            {
                stepped.Set();
                stopper.Join();
            }
            Check(latched.Stopped, "stop returned the latched state");
            SafetyState s = ep.Safety();
            Check(s.Stopped && s.Confirmed, "stopped and confirmed");
            Equal(1UL, s.StopCount, "stop count");
            ulong tick = r.Report.TickAfter;
            Result refused = ep.Step(1);
            Equal(Outcome.Rejected, refused.Outcome, "step after stop");
            Equal(Reason.StopLatched, refused.Reason, "reason after stop");
            Equal(tick, refused.Report.TickAfter, "no step taken");
            Equal(Outcome.Ok, ep.ConfirmPaused(), "confirm paused");
            Equal(Outcome.Ok, ep.SafetyReset(), "safety reset");
            Equal(tick + 1, ep.Step(1).Report.TickAfter, "steps again");
        }
    }

    static void AcknowledgementsRefusedWhenNotStopped()
    {
        using (var ep = Endpoint.Open(Config("pendulum.xml")))
        {
            Equal(Outcome.Rejected, ep.ConfirmPaused(), "confirm");
            Equal(Reason.NotStopped, ErrorDetail.Last().Reason, "reason");
        }
    }

    static void DisposedEndpointThrowsAndClosesOnce()
    {
        var ep = Endpoint.Open(Config("pendulum.xml"));
        EndpointHandle h = ep.Handle;
        ep.Dispose();
        ep.Dispose();
        Check(ep.IsClosed && h.IsClosed, "closed");
        try
        {
            ep.Step(1);
            throw new Exception("step on a disposed endpoint did not throw");
        }
        catch (ObjectDisposedException) { }
    }

    static void NamesComeFromTheLibrary()
    {
        Equal("MJB_ROLLED_BACK", Bridge.OutcomeName(Outcome.RolledBack), "outcome name");
        Equal("MJB_REASON_STOP_LATCHED", Bridge.ReasonName(Reason.StopLatched), "reason name");
        foreach (Reason r in Enum.GetValues(typeof(Reason)))
            Equal(r, Bridge.ReasonFromName(Bridge.ReasonName(r)), "reason round trip");
    }

    static void HostSurfaceNamesFramesInputsAndWriteStep()
    {
        using (var ep = Endpoint.Open(Config("host.xml", ",\"frame\":[\"qpos\",\"ctrl\",\"xpos\",\"mocap_pos\"]")))
        {
            ModelDims d = ep.Dims();
            Equal(13L, d.Nq, "nq");
            Equal(6L, d.Nbody, "nbody");
            Equal(4, ep.NameToId(ObjectKind.Body, "ball"), "ball id");
            Equal(-1, ep.NameToId(ObjectKind.Body, "nobody"), "unknown name");
            Equal("tip_pos", ep.IdToName(ObjectKind.Sensor, 2), "sensor name");
            Equal(5UL, ep.SensorSlice(3)[0], "sensor address");
            Equal(7UL, ep.JointSlice(2).QposLen, "free joint width");
            Equal("xfrc_applied", Bridge.FieldName(Field.XfrcApplied), "field name");
            Check(ep.Input(Field.MocapPos, 0, new[] { 0.1, 0.2, 0.9 }).Ok, "mocap input");
            Result r = ep.CtrlStep(new[] { 0.5, -0.5 }, 3);
            Check(r.Ok && r.Report.TickAfter == 3, "ctrl + step");
            var qpos = new double[ep.FrameFieldLen(Field.Qpos)];
            var ctrl = new double[2];
            var mocap = new double[3];
            FrameInfo info = ep.ReadFrame(new[] { Field.Qpos, Field.Ctrl, Field.MocapPos }, new[] { qpos, ctrl, mocap });
            Equal(3UL, info.Tick, "frame tick");
            Equal(FrameCause.Step, info.Cause, "frame cause");
            Equal(-0.5, ctrl[1], "ctrl in the frame");
            Equal(0.9, mocap[2], "mocap in the frame");
            bool threw = false;
            try { ep.ReadFrame(Field.Qvel, new double[11]); }
            catch (MjbException e) { threw = e.Reason == Reason.NotInFrame; }
            Check(threw, "qvel is not published");
            Result bad = ep.Input(Field.XfrcApplied, 4, new[] { 1.0, 2.0 });
            Equal(Reason.Dimension, bad.Reason, "wrong width refused");
            Equal("/values", bad.Detail.Pointer, "pointer");
        }
    }

    static void LogCallbackSeesARefusedDocument()
    {
        var seen = new List<string>();
        Bridge.SetLogCallback((level, msg) => { lock (seen) seen.Add(level + " " + msg); }, LogLevel.Info);
        try
        {
            using (var ep = Endpoint.Open(Config("pendulum.xml")))
            {
                Check(!ep.Restore("{\"profile\":1}").Ok, "refused");
            }
        }
        finally
        {
            Bridge.SetLogCallback(null);
        }
        Check(seen.Exists(s => s.StartsWith("Info ") && s.Contains("refused")), "refused document logged");
        Check(!Bridge.HasLogCallback, "removed");
    }

    static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: tests.exe <models folder>");
            return 2;
        }
        models = Path.GetFullPath(args[0]);
        var tests = new Action[]
        {
            LibraryVersionMatchesTheBinding,
            EveryDllImportResolvesInTheLibrary,
            OpenStepCheckpointRestoreRoundTrip,
            RefusedDocumentCarriesReasonAndPointerAndChangesNothing,
            OpenRefusalThrowsWithModelLoadReason,
            Utf8InAndOut,
            SetCtrlWritesAndRefusesAWrongLengthWithoutWriting,
            StopFromASecondThreadHaltsStepping,
            AcknowledgementsRefusedWhenNotStopped,
            DisposedEndpointThrowsAndClosesOnce,
            NamesComeFromTheLibrary,
            HostSurfaceNamesFramesInputsAndWriteStep,
            LogCallbackSeesARefusedDocument,
        };
        int passed = 0, failed = 0;
        foreach (var t in tests)
        {
            try
            {
                t();
                passed++;
                Console.WriteLine("ok   " + t.Method.Name);
            }
            catch (Exception e)
            {
                failed++;
                Console.WriteLine("FAIL " + t.Method.Name + ": " + e);
            }
        }
        Console.WriteLine(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
