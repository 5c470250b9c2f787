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
            Check(r.Ok && ReferenceEquals(r.Detail, ErrorDetail.None), "step ok");
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
            Check(ep.World().Text.Contains("\"name\":\"" + escaped + "\""), "name round trip");
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
            Check(ep.World().Text.Contains("\"ctrl\":[0.25]"), "ctrl served");
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

    const string LoopFrame = ",\"frame\":[\"qpos\",\"qvel\",\"ctrl\",\"sensordata\"]";

    static bool SameBits(double[] a, double[] b)
    {
        if (a.Length != b.Length) return false;
        for (int i = 0; i < a.Length; i++)
            if (BitConverter.DoubleToInt64Bits(a[i]) != BitConverter.DoubleToInt64Bits(b[i])) return false;
        return true;
    }

    static double[][] Buffers(Endpoint ep, Field[] fields)
    {
        var b = new double[fields.Length][];
        for (int i = 0; i < fields.Length; i++) b[i] = new double[ep.FrameFieldLen(fields[i])];
        return b;
    }

    static readonly Field[] Obs = { Field.Qpos, Field.Qvel, Field.Sensordata };

    static void StepperStepsLikeCtrlStepAndReadsTheFrameInOneCall()
    {
        using (var a = Endpoint.Open(Config("host.xml", LoopFrame)))
        using (var b = Endpoint.Open(Config("host.xml", LoopFrame)))
        using (var st = a.Stepper(Obs, Buffers(a, Obs), 3))
        {
            var twin = Buffers(b, Obs);
            for (int k = 0; k < 4; k++)
            {
                var action = new[] { 0.5 - k, 0.25 * k };
                Result r = st.Step(action);
                Check(r.Ok && !r.HasDetail && ReferenceEquals(r.Detail, ErrorDetail.None), "step ok");
                Result rb = b.CtrlStep(action, 3);
                FrameInfo ib = b.ReadFrame(Obs, twin);
                Equal((ulong)(3 * k + 3), st.Info.Tick, "stepper tick");
                Equal(ib.Tick, st.Info.Tick, "same tick");
                Equal(rb.Report.TickAfter, r.Report.TickAfter, "same report");
                for (int i = 0; i < Obs.Length; i++) Check(SameBits(twin[i], st.Buffers[i]), "same " + Obs[i]);
            }
            Equal(Hash(b), Hash(a), "same world");
        }
    }

    static void StepperRefusalIsAResultAndChangesNothing()
    {
        using (var ep = Endpoint.Open(Config("host.xml", LoopFrame)))
        using (var st = ep.Stepper(Obs, Buffers(ep, Obs)))
        {
            Check(st.Step(new[] { 0.1, 0.2 }).Ok, "first step");
            string before = ep.World();
            var kept = (double[])st.Buffers[0].Clone();
            st.Ctrl[0] = double.NaN;
            Result r = st.Step();
            Equal(Outcome.Rejected, r.Outcome, "outcome");
            Equal(Reason.NotFinite, r.Reason, "reason");
            Equal("/inputs/0/values/0", r.Detail.Pointer, "pointer, parsed when asked");
            Equal(Reason.NotFinite, r.Detail.Reason, "detail reason");
            Equal(before, ep.World(), "world unchanged");
            Check(SameBits(kept, st.Buffers[0]), "buffers untouched");
            // A later refusal on this thread replaces the copy: the old Result says so.
            Result later = ep.CtrlStep(new[] { 1.0 });
            Equal(Reason.Dimension, later.Reason, "later reason");
            bool threw = false;
            try { var d = r.Detail; Check(d == null, "unreachable"); }
            catch (InvalidOperationException) { threw = true; }
            Check(threw, "a replaced detail throws");
            Equal("/inputs/0/values", later.Detail.Pointer, "later pointer");
            // A field outside the frame refuses the step before anything is written.
            using (var bad = ep.Stepper(new[] { Field.Qpos, Field.Xpos }, new[] { new double[13], new double[18] }))
            {
                Result nf = bad.Step(new[] { 1.0, 1.0 });
                Equal(Reason.NotInFrame, nf.Reason, "not in frame");
                Equal("/requests/1/field", nf.Detail.Pointer, "request pointer");
                Equal(before, ep.World(), "world unchanged by the refused step");
            }
        }
    }

    static long Allocated() { return GC.GetAllocatedBytesForCurrentThread(); }

    const string History = ",\"history\":{\"window_ticks\":100,\"keyframe_every\":10}";

    // An endpoint of host.xml with a history, or null on an engine that serves only the basic
    // profile: there the open must be refused with Reason.Profile (checked, not skipped).
    static Endpoint HistoryEndpoint()
    {
        try
        {
            return Endpoint.Open(Config("host.xml", History));
        }
        catch (MjbException e)
        {
            Equal(Reason.Profile, e.Reason, "a history refused at open");
            Check(Bridge.BuildInfo().Contains("\"integration_profile\":false"), "only a 2.x engine lacks the integration profile: " + e.Message);
            return null;
        }
    }

    // 60 ticks with a control written every tick; the checkpoint read at each tick (after its
    // input, before its step), as a rewind must give it back.
    static Dictionary<ulong, string> Record(Endpoint ep)
    {
        var seen = new Dictionary<ulong, string>();
        var ctrl = new double[2];
        for (int t = 0; t < 60; t++)
        {
            ctrl[0] = Math.Sin(0.3 * t);
            ctrl[1] = 0.01 * t;
            Check(ep.SetCtrl(ctrl).Ok, "set ctrl");
            seen[(ulong)t] = ep.Checkpoint();
            Check(ep.Step(1).Ok, "step");
        }
        seen[60] = ep.Checkpoint();
        return seen;
    }

    static void RewindGivesBackTheCheckpointReadAtATickAndRefusesOutsideTheWindow()
    {
        Endpoint ep = HistoryEndpoint();
        if (ep == null) return;
        using (ep)
        {
            var seen = Record(ep);
            HistoryState h = ep.HistoryInfo();
            Equal(0UL, h.OldestTick, "oldest tick");
            Equal(60UL, h.NewestTick, "newest tick");
            Check(h.Keyframes > 0 && h.Bytes > 0, "keyframes and bytes");
            foreach (ulong t in new ulong[] { 37, 5, 59, 0, 12, 60, 13 })
            {
                Result r = ep.Rewind(t);
                Check(r.Ok, "rewind to " + t + ": " + r.Detail.Message);
                Equal(t, r.Report.TickAfter, "tick after the rewind");
                Equal(seen[t], (string)ep.Checkpoint(), "the checkpoint at tick " + t);
            }
            // Scrubbing keeps the timeline: the newest tick is still 60.
            Equal(60UL, ep.HistoryInfo().NewestTick, "newest tick after scrubbing");

            // Outside the window, and a stale precondition: refused, nothing changed.
            string before = ep.Checkpoint();
            Result o = ep.Rewind(61);
            Equal(Outcome.Rejected, o.Outcome, "out of window outcome");
            Equal(Reason.OutOfRange, o.Reason, "out of window reason");
            Check(o.Detail.Message.Contains("outside the history window 0..=60"), o.Detail.Message);
            Equal(before, (string)ep.Checkpoint(), "checkpoint unchanged by the refused rewind");
            Result p = ep.Rewind(20, Endpoint.WaitForever, Expect.AtTick(999));
            Equal(Reason.Precondition, p.Reason, "stale precondition");
            Equal(before, (string)ep.Checkpoint(), "checkpoint unchanged by the stale rewind");
            Equal(60UL, ep.HistoryInfo().NewestTick, "history unchanged by the refusals");

            // Export: a recording of the window; a range outside it refused, nothing changed.
            string doc = ep.HistoryExport();
            Check(doc.StartsWith("{\"recording\":", StringComparison.Ordinal), "a recording document");
            Check(doc.Contains("\"mjbridge_recording_v1\""), "its format");
            Check(doc.Contains("\"end_tick\":60"), "its end tick");
            Check(ep.HistoryExport(10, 20).Contains("\"end_tick\":20"), "a range's end tick");
            bool threw = false;
            try { ep.HistoryExport(0, 500); }
            catch (MjbException e) { threw = e.Reason == Reason.OutOfRange; }
            Check(threw, "an export past the window refused with OutOfRange");
            Equal(before, (string)ep.Checkpoint(), "checkpoint unchanged by the exports");
        }
        using (var none = Endpoint.Open(Config("host.xml")))
        {
            string before = none.Checkpoint();
            Equal(Reason.OutOfRange, none.Rewind(0).Reason, "no history: rewind refused");
            Equal(before, (string)none.Checkpoint(), "no history: nothing changed");
        }
    }

    static void HistoryExportWithoutARangeIsTheWindowWhileAnotherThreadSteps()
    {
        Endpoint ep = HistoryEndpoint();
        if (ep == null) return;
        using (ep)
        {
            Record(ep);
            Check(ep.Step(90).Ok, "the window slides past tick 0");
            bool threw = false;
            try { ep.HistoryExport(0); }
            catch (MjbException e) { threw = e.Reason == Reason.OutOfRange; }
            Check(threw, "an export from tick 0 refused once the window slid");
            var done = new ManualResetEvent(false);
            var stepper = new Thread(() => { while (!done.WaitOne(0)) ep.Step(1); });
            stepper.Start();
            try
            {
                for (int i = 0; i < 300; i++)
                {
                    string doc = ep.HistoryExport();
                    Check(doc.StartsWith("{\"recording\":", StringComparison.Ordinal), "export " + i);
                }
            }
            finally
            {
                done.Set();
                stepper.Join();
            }
        }
    }

    static void RewindAllocatesNothing()
    {
        Endpoint ep = HistoryEndpoint();
        if (ep == null) return;
        using (ep)
        {
            Record(ep);
            int n = 300;
            Action run = () =>
            {
                for (int i = 0; i < n; i++)
                {
                    Check(ep.Rewind((ulong)(i % 2 == 0 ? 17 : 44)).Ok, "rewind");
                    Check(ep.Rewind(44, Endpoint.WaitForever, Expect.AtTick(44)).Ok || i % 2 == 0, "conditional rewind");
                    Check(ep.Rewind(500).Reason == Reason.OutOfRange, "refused rewind");
                    Check(ep.Rewind(3, Endpoint.WaitForever, Expect.AtTick(999)).Reason == Reason.Precondition, "stale rewind");
                    Check(ep.HistoryInfo().NewestTick == 60, "history info");
                }
            };
            run(); // warm: JIT, thread tables, the detail buffer
            int gcs = GC.CollectionCount(0);
            long before = Allocated();
            run();
            long bytes = Allocated() - before;
            Equal(0L, bytes, "bytes allocated by " + (5 * n) + " rewind and history calls");
            Equal(gcs, GC.CollectionCount(0), "collections");
        }
    }


    static void AcceptedAndRefusedCallsAllocateNothing()
    {
        using (var ep = Endpoint.Open(Config("host.xml", LoopFrame)))
        using (var stopped = Endpoint.Open(Config("host.xml", LoopFrame)))
        {
            var bufs = Buffers(ep, Obs);
            var st = ep.Stepper(Obs, Buffers(ep, Obs));
            var reader = ep.FrameReader(Obs, Buffers(ep, Obs));
            var unserved = ep.FrameReader(new[] { Field.Xpos }, new[] { new double[18] });
            var ctrl = new[] { 0.2, -0.1 };
            var nan = new[] { double.NaN, 0.0 };
            var qpos = new double[13];
            RestorePoint rp = ep.Capture();
            stopped.Stop();
            int n = 2000;
            Action run = () =>
            {
                for (int i = 0; i < n; i++)
                {
                    FrameInfo info;
                    Check(ep.Step(1).Ok, "step");
                    Check(ep.Step(1).Detail.Pointer.Length == 0, "an accepted call's detail");
                    Check(ep.CtrlStep(ctrl).Ok, "ctrl step");
                    Check(st.Step().Ok, "stepper");
                    Check(ep.TryReadFrame(Obs, bufs, out info) == Outcome.Ok, "read many");
                    Check(reader.TryRead() == Outcome.Ok, "reader");
                    Check(ep.TryReadFrame(Field.Qpos, qpos, out info) == Outcome.Ok, "read one");
                    // Refused: a non-finite control, a stopped endpoint, a field not in the frame.
                    Check(ep.CtrlStep(nan).Reason == Reason.NotFinite, "refused ctrl step");
                    Check(stopped.Step(1).Reason == Reason.StopLatched, "refused step");
                    st.Ctrl[1] = double.NaN;
                    Check(st.Step().Reason == Reason.NotFinite, "refused stepper");
                    st.Ctrl[1] = 0.0;
                    Check(unserved.TryRead() == Outcome.Rejected, "refused read");
                    // Restore points and preconditions, accepted and refused.
                    Check(ep.Apply(rp).Ok, "apply");
                    Check(st.Step(Expect.AtTick(rp.Tick)).Ok, "conditional stepper");
                    Check(ep.CtrlStep(ctrl, 1, Endpoint.WaitForever, Expect.At(st.Info)).Ok, "conditional ctrl step");
                    Check(ep.Apply(rp, Endpoint.WaitForever, Expect.AtTick(rp.Tick)).Reason == Reason.Precondition, "refused apply");
                    Check(st.Step(Expect.AtTick(rp.Tick)).Reason == Reason.Precondition, "refused stepper");
                    Check(ep.Step(1, Endpoint.WaitForever, Expect.AtConfiguration(1)).Reason == Reason.Precondition, "refused step");
                    Check(stopped.Apply(rp).Reason == Reason.OtherEndpoint, "foreign restore point");
                }
            };
            run(); // warm: JIT, thread tables, the detail buffer
            int gcs = GC.CollectionCount(0);
            long before = Allocated();
            run();
            long bytes = Allocated() - before;
            Equal(0L, bytes, "bytes allocated by " + (18 * n) + " calls");
            Equal(gcs, GC.CollectionCount(0), "collections");
            st.Dispose();
            reader.Dispose();
            unserved.Dispose();
            rp.Dispose();
            bool threw = false;
            try { st.Step(); }
            catch (ObjectDisposedException) { threw = true; }
            Check(threw, "a disposed stepper throws");
        }
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    static WeakReference RefusedCtrlStep(Endpoint ep)
    {
        var nan = new[] { double.NaN, 1.0 };
        Equal(Reason.NotFinite, ep.CtrlStep(nan).Reason, "refused");
        return new WeakReference(nan);
    }

    static void ACallFromTheLogCallbackInsideAnotherGetsItsOwnTables()
    {
        using (var ep = Endpoint.Open(Config("host.xml", LoopFrame)))
        {
            var fields = new[] { Field.Qpos, Field.Ctrl };
            var inner = new[] { new double[13], new double[2] };
            int nested = 0;
            // The log callback runs on this thread before the refused CtrlStep returns, while
            // that call still holds its pinned ctrl array: the nested ReadFrame must not reuse it.
            Bridge.SetLogCallback((level, msg) =>
            {
                FrameInfo info;
                if (ep.TryReadFrame(fields, inner, out info) == Outcome.Ok) nested++;
            }, LogLevel.Info);
            var weak = new WeakReference[50];
            try
            {
                for (int i = 0; i < weak.Length; i++) weak[i] = RefusedCtrlStep(ep);
                Check(ep.CtrlStep(new[] { 0.25, -0.5 }).Ok, "then accepted");
            }
            finally
            {
                Bridge.SetLogCallback(null);
            }
            Equal(50, nested, "nested reads");
            // Every ctrl array was unpinned: a pin lost to the nested call would keep it alive.
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            int alive = 0;
            foreach (var w in weak) if (w.IsAlive) alive++;
            Check(alive <= 2, alive + " of 50 ctrl arrays are still pinned");
            var ctrl = new double[2];
            ep.ReadFrame(new[] { Field.Ctrl }, new[] { ctrl });
            Equal(-0.5, ctrl[1], "the accepted ctrl");
        }
    }

    static void IndexNamesTheSlicesOfQposQvelCtrlAndSensordata()
    {
        using (var ep = Endpoint.Open(Config("host.xml", LoopFrame)))
        {
            ModelIndex idx = ep.Index();
            Equal("slide,hinge,ball_free", string.Join(",", idx.Joints), "joints (the ball joint is unnamed)");
            Equal("push,twist", string.Join(",", idx.Actuators), "actuators");
            Equal("slide_pos,hinge_vel,tip_pos,ball_acc", string.Join(",", idx.Sensors), "sensors");
            Equal(2, idx.Qpos("ball_free").Start, "free joint qpos start");
            Equal(7, idx.Qpos("ball_free").Length, "free joint qpos width");
            Equal(6, idx.Qvel("ball_free").Length, "free joint dofs");
            Equal(1, idx.Ctrl("twist").Start, "actuator");
            Equal(2, idx.Sensordata("tip_pos").Start, "sensor address");
            Equal(3, idx.Sensordata("tip_pos").Length, "sensor width");
            bool threw = false;
            try { idx.Qpos("nope"); }
            catch (KeyNotFoundException e) { threw = e.Message.Contains("no joint is named \"nope\""); }
            Check(threw, "unknown name");
            Slice s;
            Check(!idx.TryCtrl("slide", out s), "a joint is not an actuator");
            Check(ep.CtrlStep(new[] { 2.0, -0.5 }, 5).Ok, "step");
            var qpos = new double[13];
            var ctrl = new double[2];
            ep.ReadFrame(new[] { Field.Qpos, Field.Ctrl }, new[] { qpos, ctrl });
            var ball = new double[7];
            idx.Qpos("ball_free").CopyTo(qpos, ball);
            Equal(qpos[2], ball[0], "slice copy");
            Equal(-0.5, ctrl[idx.Ctrl("twist").Start], "ctrl by name");
            Equal(0UL, idx.Configuration, "configuration");
        }
    }

    static void ConfigEscapesWindowsPathsQuotesAndNonAscii()
    {
        string name = "Zo\u00eb \"quoted\" \u6a5f\u68b0 \\ \U0001F916\t";
        string windows = "C:\\Users\\Zo\u00eb\\robot \"v2\".xml";
        var cfg = MjBridge.Config.FromPath(windows);
        cfg.Name = name;
        cfg.Seed = 7;
        cfg.Frame = new[] { Field.Qpos, Field.Ctrl };
        cfg.Publish = "end_of_call";
        Equal("{\"model\":{\"xml_path\":\"C:\\\\Users\\\\Zo\u00eb\\\\robot \\\"v2\\\".xml\"},\"name\":\"Zo\u00eb \\\"quoted\\\" \u6a5f\u68b0 \\\\ \U0001F916\\t\",\"seed\":7,\"frame\":{\"publish\":\"end_of_call\",\"fields\":[\"qpos\",\"ctrl\"]}}",
              cfg.ToJson(), "config JSON");
        try
        {
            Endpoint.Open(cfg).Dispose();
            throw new Exception("a missing file opened");
        }
        catch (MjbException e)
        {
            Equal(Reason.ModelLoad, e.Reason, "parsed, then the file is missing (not MalformedJson)");
            Check(e.Detail.Message.Contains(windows), "the exact path reached MuJoCo: " + e.Detail.Message);
        }
        // Quotes and non-ASCII in a real folder (MuJoCo reads '\' as a separator on Linux).
        string dir = Path.Combine(Path.GetTempPath(), "mjb cs Zo\u00eb \"q\" \u6a5f\u68b0 " + System.Diagnostics.Process.GetCurrentProcess().Id);
        Directory.CreateDirectory(dir);
        try
        {
            File.Copy(Path.Combine(models, "pendulum.xml"), Path.Combine(dir, "pendulum.xml"), true);
            var real = MjBridge.Config.FromPath(Path.Combine(dir, "pendulum.xml"));
            real.Name = name;
            real.Seed = 3;
            using (var ep = Endpoint.Open(real))
            {
                Check(ep.World().Text.Contains("\"name\":" + Json.String(new System.Text.StringBuilder(), name)), "name round trip");
                Check(ep.ReplaceModel(MjBridge.Config.FromPath(Path.Combine(models, "host.xml"))).Ok, "replace by Config");
                Equal(13L, ep.Dims().Nq, "replaced");
            }
        }
        finally
        {
            Directory.Delete(dir, true);
        }
        using (var ep = Endpoint.Open(MjBridge.Config.FromXml("<mujoco><worldbody><geom size='1'/></worldbody></mujoco>")))
            Equal(1L, ep.Dims().Ngeom, "from xml");
    }

    static void AnAcceptedCallsDetailIsEmptyNotNull()
    {
        using (var ep = Endpoint.Open(Config("pendulum.xml")))
        {
            Result r = ep.Step(2);
            Check(r.Ok && !r.HasDetail, "accepted");
            ErrorDetail d = r.Detail;  // docs/csharp.md's r.Detail.Pointer: no exception
            Equal("", d.Pointer, "pointer");
            Equal("", d.Message, "message");
            Equal("{}", d.Json, "json");
            Equal(Outcome.Ok, d.Outcome, "outcome");
            Equal(Reason.None, d.Reason, "reason");
            Check(!d.HasPointer, "no pointer");
            Check(ReferenceEquals(d, ErrorDetail.None), "the shared empty detail");
            Equal("refused at " + r.Detail.Pointer, "refused at ", "concatenates");
            r.EnsureOk();
            // A refusal that names no field: Pointer "" too, HasPointer false.
            Document at = ep.World();
            Result stale = ep.Step(1, Endpoint.WaitForever, Expect.AtTick(at.Tick + 1));
            Equal(Reason.Precondition, stale.Reason, "stale");
            Equal("", stale.Detail.Pointer, "no pointer named");
            Check(!stale.Detail.HasPointer && stale.Detail.Message.Length > 0, "message, no pointer");
            // The whole document is the pointer "": named, and so HasPointer.
            Result broken = ep.Restore("not json");
            Equal(Reason.MalformedJson, broken.Reason, "malformed");
            Check(broken.Detail.HasPointer && broken.Detail.Pointer == "", "the root pointer");
            Equal(at, ep.World(), "nothing changed");
        }
    }

    static void AStringConfigIsADocumentWhenItStartsWithABraceElseAPath()
    {
        string pendulum = Path.Combine(models, "pendulum.xml");
        string host = Path.Combine(models, "host.xml");
        Check(MjBridge.Config.IsDocument("{}") && MjBridge.Config.IsDocument(" \t\r\n{\"model\":1}"), "documents");
        Check(!MjBridge.Config.IsDocument(pendulum) && !MjBridge.Config.IsDocument("") &&
              !MjBridge.Config.IsDocument("[1]") && !MjBridge.Config.IsDocument("\u00a0{}"), "paths");
        using (var ep = Endpoint.Open(pendulum))
            Equal(1L, ep.Dims().Nq, "a path string opens the model");
        using (var ep = Endpoint.Open("\n  " + Config("pendulum.xml")))
            Equal(3UL, ulong.Parse(FlatJsonSeed(ep.World())), "a document after whitespace");
        foreach (string bad in new[] { Path.Combine(models, "no such model.xml"), "[1]" })
        {
            try
            {
                Endpoint.Open(bad).Dispose();
                throw new Exception("opened " + bad);
            }
            catch (MjbException e)
            {
                Equal(Reason.ModelLoad, e.Reason, "read as a path: " + bad);
                Equal("/model", e.Pointer, "pointer");
                Check(e.Detail.Message.Contains(bad), "the path reached MuJoCo: " + e.Detail.Message);
            }
        }
        try
        {
            Endpoint.Open("  {\"model\":").Dispose();
            throw new Exception("opened a broken document");
        }
        catch (MjbException e)
        {
            Equal(Reason.MalformedJson, e.Reason, "a broken document is refused as JSON");
        }
        using (var ep = Endpoint.Open(Config("host.xml")))
        {
            ep.Step(3).EnsureOk();
            var reader = ep.FrameReader(new[] { Field.Qpos }, new[] { new double[13] });
            Equal(3UL, reader.Read().Tick, "a frame reader reads");
            Check(ep.ReplaceModel(pendulum).Ok, "replace by a path string");
            Equal(1L, ep.Dims().Nq, "replaced");
            Equal(1UL, ep.Dims().Configuration, "configuration");
            Equal(1UL, reader.Read().Configuration, "the frame reader reads the new model");
            Equal(1, reader.Lengths[0], "it writes the new model's one value");
            var one = new double[1];
            ep.ReadFrame(Field.Qpos, one);
            Equal(one[0], reader.Buffers[0][0], "the new value");
            for (int j = 1; j < 13; j++)
                Check(double.IsNaN(reader.Buffers[0][j]), "no value of the old model is left (entry " + j + ")");
            Check(ep.ReplaceModel(" {\"model\":{\"xml_path\":" + Json.String(new System.Text.StringBuilder(), host) + "}}").Ok, "by a document");
            Equal(13L, ep.Dims().Nq, "replaced again");
            Equal(2UL, reader.Read().Configuration, "and the next one");
            Equal(13, reader.Lengths[0], "the larger model's length again");
            Check(!double.IsNaN(reader.Buffers[0][12]), "every entry is a value again");
            reader.Dispose();
            Document before = ep.World();
            Result r = ep.ReplaceModel(Path.Combine(models, "missing.xml"));
            Equal(Reason.ModelLoad, r.Reason, "a missing file");
            Equal("/model", r.Detail.Pointer, "pointer");
            Equal(before, ep.World(), "nothing changed");
            Equal(2UL, ep.Dims().Configuration, "configuration kept");
            r = ep.ReplaceModel(pendulum, Endpoint.WaitForever, Expect.AtConfiguration(1));
            Equal(Reason.Precondition, r.Reason, "stale, by a path");
            Equal(before, ep.World(), "nothing changed");
            Check(ep.ReplaceModel(pendulum, Endpoint.WaitForever, Expect.AtConfiguration(2)).Ok, "current, by a path");
            Equal(1L, ep.Dims().Nq, "replaced by a path under a precondition");
        }
    }

    static string FlatJsonSeed(string world)
    {
        int i = world.IndexOf("\"seed\":", StringComparison.Ordinal) + 7;
        int j = i;
        while (j < world.Length && char.IsDigit(world[j])) j++;
        return world.Substring(i, j - i);
    }

    static void DocumentsSayTheTickAndConfigurationTheyWereReadAt()
    {
        using (var ep = Endpoint.Open(Config("host.xml", LoopFrame)))
        {
            ep.CtrlStep(new[] { 0.5, -0.5 }, 3).EnsureOk();
            FrameInfo seen = ep.ReadFrame(Field.Qpos, new double[13]);
            Document w = ep.World(), c = ep.Checkpoint(), s = ep.Snapshot();
            Equal(3UL, seen.Tick, "frame tick");
            Equal(seen.Tick, w.Tick, "world tick");
            Equal(seen.Tick, c.Tick, "checkpoint tick");
            Equal(seen.Tick, s.Tick, "snapshot tick");
            Equal(0UL, w.Configuration, "configuration");
            Equal(w, s, "a snapshot is the world document");
            Check(w != c, "a checkpoint is not");
            string text = w;
            Equal(w.Text, text, "converts to its text");
            Equal(w.Text, w.ToString(), "ToString is the text");
            Check(w.Text.Contains("\"tick\":3,"), "the text says the same tick");
            Check(ep.ReplaceModel(MjBridge.Config.FromPath(Path.Combine(models, "host.xml"))).Ok, "replace");
            Document after = ep.World();
            Equal(1UL, after.Configuration, "a replacement bumps the configuration");
            Equal(3UL, after.Tick, "and keeps the tick");
            Expect e = Expect.At(after);
            Equal(Constants.ExpectTick | Constants.ExpectConfiguration | Constants.ExpectFrame, e.Flags, "At checks all three");
            Equal(3UL, e.Tick, "expected tick");
            Equal(1UL, e.Configuration, "expected configuration");
            Check(after.Frame > w.Frame && w.Frame > 0, "the replacement published a frame");
            Equal(after.Frame, e.Frame, "expected frame");
            Check(ep.Step(1, Endpoint.WaitForever, Expect.AtFrame(w.Frame)).Reason == Reason.Precondition, "a stale frame number is refused");
            Check(ep.Step(1, Endpoint.WaitForever, e).Ok, "the current one admits the step");
        }
    }

    static void ModelFingerprintNamesTheCompiledModelAndRefusesAnother()
    {
        string host = File.ReadAllText(Path.Combine(models, "host.xml"));
        string damped = host.Replace("damping=\"0.5\"", "damping=\"0.6\"");
        Check(damped != host, "the model was changed");
        var same = MjBridge.Config.FromXml(host);
        same.Seed = 3;
        var changed = MjBridge.Config.FromXml(damped);
        changed.Seed = 3;
        using (var a = Endpoint.Open(Config("host.xml")))
        using (var b = Endpoint.Open(same))
        using (var other = Endpoint.Open(changed))
        {
            string fa = a.ModelFingerprint();
            Check(fa.StartsWith("sha256:", StringComparison.Ordinal) && fa.Length == 71, "format: " + fa);
            Equal(fa, b.ModelFingerprint(), "the same model from a file or from text");
            Check(other.ModelFingerprint() != fa, "another damping, another fingerprint");
            Equal(a.Dims().Nq, other.Dims().Nq, "with the same dimensions");
            Document world = a.World();
            Check(world.Text.Contains("\"model_fingerprint\":\"" + fa + "\""), "served in the world document");
            other.Step(3).EnsureOk();
            Document before = other.World();
            Result r = other.Restore(world);
            Equal(Outcome.Rejected, r.Outcome, "outcome");
            Equal(Reason.ModelFingerprint, r.Reason, "reason");
            Equal("/world/model_fingerprint", r.Detail.Pointer, "pointer");
            Equal(before, other.World(), "nothing changed");
            Check(b.Restore(world).Ok, "the same model takes it");
        }
    }

    static void EveryMutationTakesAPreconditionAndAStaleOneChangesNothing()
    {
        using (var ep = Endpoint.Open(Config("host.xml", LoopFrame)))
        using (var st = ep.Stepper(Obs, Buffers(ep, Obs)))
        {
            ep.Step(2).EnsureOk();
            string cp = ep.Checkpoint();
            RestorePoint rp = ep.Capture();
            var ctrl = new[] { 0.25, -0.5 };
            var cfg = MjBridge.Config.FromPath(Path.Combine(models, "host.xml"));
            const string write = "{\"world\":{\"ctrl\":[0.5,0.5]}}";
            const uint wait = Endpoint.WaitForever;
            var names = new[]
            {
                "step", "set ctrl", "world write", "world write bytes", "restore", "restore bytes", "input",
                "ctrl step", "stepper", "stepper ctrl", "apply", "replace model", "replace model config",
            };
            var calls = new Func<Expect, Result>[]
            {
                e => ep.Step(1, wait, e),
                e => ep.SetCtrl(ctrl, wait, e),
                e => ep.WorldWrite(write, wait, e),
                e => ep.WorldWrite(System.Text.Encoding.UTF8.GetBytes(write), wait, e),
                e => ep.Restore(cp, wait, e),
                e => ep.Restore(System.Text.Encoding.UTF8.GetBytes(cp), wait, e),
                e => ep.Input(Field.Ctrl, 1, new[] { 0.125 }, wait, e),
                e => ep.CtrlStep(ctrl, 2, wait, e),
                e => st.Step(e),
                e => st.Step(ctrl, e),
                e => ep.Apply(rp, wait, e),
                e => ep.ReplaceModel(cfg.ModelJson(), wait, e),
                e => ep.ReplaceModel(cfg, wait, e),
            };
            for (int k = 0; k < calls.Length; k++)
            {
                string name = names[k];
                Document before = ep.World();
                ModelDims d = ep.Dims();
                SafetyState s0 = ep.Safety();
                var kept = (double[])st.Buffers[0].Clone();
                var stale = new[]
                {
                    Expect.AtTick(before.Tick + 1),
                    Expect.AtConfiguration(d.Configuration + 1),
                    Expect.At(before).WithTick(before.Tick - 1),
                };
                foreach (Expect e in stale)
                {
                    Result r = calls[k](e);
                    Equal(Outcome.Rejected, r.Outcome, name + ": outcome");
                    Equal(Reason.Precondition, r.Reason, name + ": reason");
                    Check(r.Detail.Message.Contains("another call moved the endpoint on first"), name + ": " + r.Detail.Message);
                    Equal(before.Tick, r.Report.TickAfter, name + ": tick");
                    Equal(before, ep.World(), name + ": world unchanged");
                    Equal(d.Configuration, ep.Dims().Configuration, name + ": configuration unchanged");
                    Equal(s0.StopCount, ep.Safety().StopCount, name + ": safety unchanged");
                    if (name.StartsWith("stepper", StringComparison.Ordinal))
                        Check(SameBits(kept, st.Buffers[0]), name + ": buffers untouched");
                }
                Result ok = calls[k](Expect.At(before));
                Check(ok.Ok, name + ": " + (ok.HasDetail ? ok.Detail.Json : ""));
                Equal(before.Tick, ok.Report.TickBefore, name + ": admitted at the tick seen");
                if (name.StartsWith("stepper", StringComparison.Ordinal))
                {
                    Equal(ok.Report.TickAfter, st.Info.Tick, name + ": the frame after the step");
                    Check(st.Info.Frame != 0, name + ": read");
                }
            }
            Equal(2UL, ep.Dims().Configuration, "two replacements");

            // The compare-and-step of a controller: a step by another caller between the read
            // and the write refuses the ctrl chosen for the old tick.
            var qpos = new double[13];
            FrameInfo seen = ep.ReadFrame(Field.Qpos, qpos);
            ep.Step(1).EnsureOk(); // another thread
            Document moved = ep.World();
            Result late = ep.CtrlStep(ctrl, 1, wait, Expect.At(seen));
            Equal(Reason.Precondition, late.Reason, "refused");
            Equal(moved, ep.World(), "nothing changed");
            seen = ep.ReadFrame(Field.Qpos, qpos);
            Check(ep.CtrlStep(ctrl, 1, wait, Expect.At(seen)).Ok, "read again, then admitted");
            // A conditional stepper with a field the frame does not serve refuses before it writes.
            using (var bad = ep.Stepper(new[] { Field.Qpos, Field.Xpos }, new[] { new double[13], new double[18] }))
            {
                Document at = ep.World();
                Result nf = bad.Step(Expect.At(at));
                Equal(Reason.NotInFrame, nf.Reason, "not in frame");
                Equal("/requests/1/field", nf.Detail.Pointer, "request pointer");
                Equal(at, ep.World(), "nothing written");
            }
            rp.Dispose();
        }
    }

    static void RestorePointsRestoreBitForBitAndRefuseWhatIsNotTheirs()
    {
        using (var ep = Endpoint.Open(Config("host.xml", LoopFrame)))
        using (var other = Endpoint.Open(Config("host.xml", LoopFrame)))
        {
            ep.CtrlStep(new[] { 0.3, -0.2 }, 5).EnsureOk();
            Document cp = ep.Checkpoint();
            using (RestorePoint rp = ep.Capture())
            {
                Equal(5UL, rp.Tick, "tick");
                Equal(0UL, rp.Configuration, "configuration");
                Document json = rp.ToJson();
                Equal(cp, json, "to JSON: the checkpoint at the capture, byte for byte");
                Equal(5UL, json.Tick, "its tick");
                ep.Step(7).EnsureOk();
                Document after = ep.World();
                for (int k = 0; k < 3; k++)
                {
                    Result r = ep.Apply(rp);
                    Check(r.Ok, "apply");
                    Equal(12UL, r.Report.TickBefore, "tick before");
                    Equal(5UL, r.Report.TickAfter, "tick after");
                    Equal(cp, ep.Checkpoint(), "the captured state");
                    ep.Step(7).EnsureOk();
                    Equal(after, ep.World(), "the same continuation");
                }
                using (RestorePoint loaded = ep.RestorePointFromJson(cp))
                using (RestorePoint bytes = ep.RestorePointFromJson(System.Text.Encoding.UTF8.GetBytes(cp.Text)))
                {
                    Equal(cp, loaded.ToJson(), "from JSON");
                    Check(ep.Apply(bytes).Ok, "apply one read from bytes");
                    Equal(cp, ep.Checkpoint(), "restores the document's state");
                }
                Document before = ep.World();
                try
                {
                    ep.RestorePointFromJson(cp.Text.Replace("\"seed\":3", "\"seed\":4")).Dispose();
                    throw new Exception("another seed was accepted");
                }
                catch (MjbException e)
                {
                    Equal(Outcome.Rejected, e.Outcome, "outcome");
                    Equal(Reason.Seed, e.Reason, "reason, as Restore gives");
                    Equal("/seed", e.Pointer, "pointer");
                }
                Equal(before, ep.World(), "nothing changed");

                // Another endpoint of the same model refuses it, changing nothing.
                other.Step(4).EnsureOk();
                Document theirs = other.World();
                Result foreign = other.Apply(rp);
                Equal(Outcome.Rejected, foreign.Outcome, "foreign outcome");
                Equal(Reason.OtherEndpoint, foreign.Reason, "foreign reason");
                Equal(4UL, foreign.Report.TickAfter, "foreign tick");
                Equal(theirs, other.World(), "their world unchanged");

                // Immutable: applied from several threads at once.
                int failed = 0;
                var threads = new Thread[3];
                for (int t = 0; t < threads.Length; t++)
                {
                    threads[t] = new Thread(() =>
                    {
                        for (int i = 0; i < 50; i++)
                            if (!ep.Apply(rp).Ok) Interlocked.Increment(ref failed);
                    });
                    threads[t].Start();
                }
                foreach (var t in threads) t.Join();
                Equal(0, failed, "refused applies");
                Equal(cp, ep.Checkpoint(), "the captured state");

                // A model replacement makes it stale.
                ep.ReplaceModel(MjBridge.Config.FromPath(Path.Combine(models, "host.xml"))).EnsureOk();
                Document replaced = ep.World();
                Result stale = ep.Apply(rp);
                Equal(Reason.Configuration, stale.Reason, "stale configuration");
                Equal(replaced, ep.World(), "nothing changed");
            }
            RestorePoint gone = ep.Capture();
            gone.Dispose();
            gone.Dispose();
            Check(gone.IsClosed, "closed");
            bool threw = false;
            try { ep.Apply(gone); }
            catch (ObjectDisposedException) { threw = true; }
            Check(threw, "a disposed restore point throws");
        }
        var closed = Endpoint.Open(Config("pendulum.xml"));
        closed.Dispose();
        bool refused = false;
        try { closed.Capture(); }
        catch (ObjectDisposedException) { refused = true; }
        Check(refused, "a disposed endpoint captures nothing");
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
            StepperStepsLikeCtrlStepAndReadsTheFrameInOneCall,
            StepperRefusalIsAResultAndChangesNothing,
            AcceptedAndRefusedCallsAllocateNothing,
            ACallFromTheLogCallbackInsideAnotherGetsItsOwnTables,
            IndexNamesTheSlicesOfQposQvelCtrlAndSensordata,
            ConfigEscapesWindowsPathsQuotesAndNonAscii,
            AnAcceptedCallsDetailIsEmptyNotNull,
            AStringConfigIsADocumentWhenItStartsWithABraceElseAPath,
            DocumentsSayTheTickAndConfigurationTheyWereReadAt,
            ModelFingerprintNamesTheCompiledModelAndRefusesAnother,
            EveryMutationTakesAPreconditionAndAStaleOneChangesNothing,
            RestorePointsRestoreBitForBitAndRefuseWhatIsNotTheirs,
            RewindGivesBackTheCheckpointReadAtATickAndRefusesOutsideTheWindow,
            RewindAllocatesNothing,
            HistoryExportWithoutARangeIsTheWindowWhileAnotherThreadSteps,
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
