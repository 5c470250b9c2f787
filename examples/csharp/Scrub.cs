// A timeline scrub in the Unity style, in plain C#: a MonoBehaviour-like component whose
// Update() records (a control every frame, one step), then scrubs back and forth with Rewind
// (each scrubbed frame is the exact state of that tick: its checkpoint byte for byte), then
// branches (an input written after a rewind starts a new timeline from there).
//   mcs -out:scrub.exe bindings/csharp/MjBridge.cs examples/csharp/Scrub.cs
//   LD_LIBRARY_PATH=/usr/local/lib mono scrub.exe [model.xml]
using System;
using System.Collections.Generic;
using MjBridge;

// What a Unity component would be: Start() once, Update() every frame, OnDestroy() at the end.
sealed class TimelineScrubber : IDisposable
{
    const string CartPole =
        "<mujoco><option timestep='0.01'/><worldbody><body name='cart'>" +
        "<joint name='slide' type='slide' axis='1 0 0' damping='0.2'/>" +
        "<geom type='box' size='0.1 0.1 0.05' mass='1'/><body name='pole'>" +
        "<joint name='hinge' type='hinge' axis='0 1 0' damping='0.05'/>" +
        "<geom type='capsule' fromto='0 0 0 0 0 0.6' size='0.02' mass='0.2'/></body></body>" +
        "</worldbody><actuator><motor name='push' joint='slide'/></actuator></mujoco>";

    public const int RecordFrames = 300;
    // The slider positions a user drags to, back and forth across the recording.
    static readonly ulong[] Slider = { 250, 50, 275, 0, 150, 300, 125, 25, 200, 100 };

    readonly string model;
    Endpoint ep;
    double[] ctrl;
    readonly Dictionary<ulong, string> seen = new Dictionary<ulong, string>();
    int frame, identical;

    public TimelineScrubber(string model) { this.model = model; }

    public void Start()
    {
        Config config = model != null ? Config.FromPath(model) : Config.FromXml(CartPole);
        config.Name = "scrub-csharp";
        config.Seed = 5;
        config.HistoryWindowTicks = 1000; // ten seconds at 0.01 s a tick
        config.HistoryKeyframeEvery = 50;
        ep = Endpoint.Open(config);
        ctrl = new double[ep.Dims().Nu];
    }

    public void Update()
    {
        if (frame < RecordFrames) Record();
        else if (frame < RecordFrames + Slider.Length) Scrub(Slider[frame - RecordFrames]);
        else if (frame == RecordFrames + Slider.Length) Branch(100);
        frame++;
    }

    public bool Done { get { return frame > RecordFrames + Slider.Length; } }

    // Play: the user's input as a control, one step a frame. Every 25th frame the checkpoint
    // is kept to check the scrub against (a real editor needs none of this).
    void Record()
    {
        for (int i = 0; i < ctrl.Length; i++) ctrl[i] = Math.Sin(0.05 * frame + i);
        ep.SetCtrl(ctrl).EnsureOk();
        ulong tick = (ulong)frame;
        if (tick % 25 == 0) seen[tick] = ep.Checkpoint();
        ep.Step(1).EnsureOk();
        if (frame == RecordFrames - 1)
        {
            seen[(ulong)RecordFrames] = ep.Checkpoint();
            HistoryState h = ep.HistoryInfo();
            Console.WriteLine("scrub-csharp: recorded ticks " + h.OldestTick + "..=" + h.NewestTick +
                              " (" + h.Keyframes + " keyframes, " + h.Bytes + " bytes)");
        }
    }

    // Scrub: the slider's tick, exactly; the timeline after it is kept until the next input.
    void Scrub(ulong tick)
    {
        ep.Rewind(tick).EnsureOk();
        bool same = (string)ep.Checkpoint() == seen[tick];
        if (same) identical++;
        Console.WriteLine("scrub-csharp: frame at tick " + tick + (same ? " byte-identical" : " DIFFERS"));
        if (frame == RecordFrames + Slider.Length - 1)
            Console.WriteLine("scrub-csharp: " + identical + " of " + Slider.Length + " scrubbed frames byte-identical");
    }

    // Branch: rewind, then a different input: the ticks after it are the new branch's.
    void Branch(ulong tick)
    {
        ep.Rewind(tick).EnsureOk();
        for (int i = 0; i < ctrl.Length; i++) ctrl[i] = -1.0;
        ep.SetCtrl(ctrl).EnsureOk();
        ep.Step(20).EnsureOk();
        HistoryState h = ep.HistoryInfo();
        Console.WriteLine("scrub-csharp: branched at tick " + tick + "; timeline now " + h.OldestTick + "..=" + h.NewestTick);
        Result r = ep.Rewind(250);
        Console.WriteLine("scrub-csharp: the old timeline's tick 250: " + r.Reason + " (" + r.Detail.Message + ")");
        ep.Rewind(tick).EnsureOk();
        Console.WriteLine("scrub-csharp: tick " + tick + " on the branch " +
                          ((string)ep.Checkpoint() == seen[tick] ? "is the same as" : "differs from") +
                          " the recording (its input is the branch's)");
    }

    public void Dispose() { if (ep != null) ep.Dispose(); }
}

static class Scrub
{
    static int Main(string[] args)
    {
        try
        {
            using (var c = new TimelineScrubber(args.Length > 0 ? args[0] : null))
            {
                c.Start();
                while (!c.Done) c.Update(); // Unity's player loop, one frame after another
            }
            Console.WriteLine("scrub-csharp: done");
            return 0;
        }
        catch (MjbException e)
        {
            Console.Error.WriteLine("scrub-csharp: " + e.Outcome + " " + e.Reason + " at " + e.Pointer + ": " + e.Message);
            return 1;
        }
    }
}
