// open -> step -> checkpoint -> restore -> stop from another thread, with the C# binding.
// The same calls work in a Unity MonoBehaviour (see docs/csharp.md, "Unity").
//   mcs -out:example.exe bindings/csharp/MjBridge.cs examples/csharp/Example.cs
//   LD_LIBRARY_PATH=/usr/local/lib mono example.exe [model.xml]
using System;
using System.Threading;
using MjBridge;

static class Example
{
    // A pendulum with one motor, inline so the example runs anywhere.
    const string Pendulum =
        "<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>" +
        "<joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/>" +
        "<geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.03' mass='1'/></body></worldbody>" +
        "<actuator><motor name='motor' joint='hinge'/></actuator></mujoco>";

    static int Main(string[] args)
    {
        // The builder escapes every string: a Windows path (C:\\Users\\...), quotes, non-ASCII.
        Config config = args.Length > 0 ? Config.FromPath(args[0]) : Config.FromXml(Pendulum);
        config.Name = "example-csharp";
        config.Seed = 1;
        try
        {
            using (var ep = Endpoint.Open(config))
            {
                Console.WriteLine("mjbridge " + Bridge.Version);

                // Step, take a checkpoint, step on, restore: the world is back, byte for byte.
                ep.Step(100).EnsureOk();
                string checkpoint = ep.Checkpoint();
                string atCheckpoint = ep.World();
                ep.Step(50).EnsureOk();
                Result r = ep.Restore(checkpoint).EnsureOk();
                if (ep.World() != atCheckpoint) throw new Exception("the world differs from the checkpoint's");
                Console.WriteLine("restored: tick " + r.Report.TickBefore + " -> " + r.Report.TickAfter);

                // A refused document is a Result: it changes nothing and says why and where.
                r = ep.Restore(checkpoint.Replace("\"seed\":1", "\"seed\":2"));
                Console.WriteLine("refused: " + r.Outcome + " " + r.Reason + " at " + r.Detail.Pointer);
                if (ep.World() != atCheckpoint) throw new Exception("a refused restore changed the world");

                // A Unity FixedUpdate's step in one call: ctrl in, one step, the frame's qpos into
                // an array made once; a joint's values by name. Nothing is allocated per call.
                ModelIndex index = ep.Index();
                using (Stepper stepper = ep.Stepper(new[] { Field.Qpos }, new[] { new double[ep.Dims().Nq] }))
                {
                    for (int i = 0; i < stepper.Ctrl.Length; i++) stepper.Ctrl[i] = 0.5;
                    stepper.Step().EnsureOk();
                    Slice joint = index.Qpos(index.Joints[0]);
                    Console.WriteLine("tick " + stepper.Info.Tick + ": " + index.Joints[0] + " = " + stepper.Buffers[0][joint.Start]);
                }
                ep.Restore(checkpoint).EnsureOk();

                // Stop from another thread while this one steps (a UI button, a watchdog).
                // Stop() never waits for the native lock.
                var stepping = new ManualResetEvent(false);
                var stopper = new Thread(() =>
                {
                    stepping.WaitOne();
                    SafetyState s = ep.Stop();
                    Console.WriteLine("stop latched from another thread (confirmed: " + s.Confirmed + ")");
                });
                stopper.Start();
                try
                {
                    while (true)
                    {
                        r = ep.Step(10);
                        stepping.Set();
                        // Halted at a step boundary (Ok) or refused before stepping (Rejected).
                        if (r.Reason == Reason.StopLatched) break;
                        r.EnsureOk();
                    }
                }
                finally
                {
                    stepping.Set();
                    stopper.Join();
                }
                Console.WriteLine("stopped at tick " + r.Report.TickAfter);
                if (ep.ConfirmPaused() != Outcome.Ok) throw new MjbException(Outcome.Rejected, ErrorDetail.Last());
                if (ep.SafetyReset() != Outcome.Ok) throw new MjbException(Outcome.Rejected, ErrorDetail.Last());
                ep.Step(1).EnsureOk();
            }
            Console.WriteLine("example-csharp: done");
            return 0;
        }
        catch (MjbException e)
        {
            Console.Error.WriteLine("example-csharp: " + e.Message);
            return 1;
        }
    }
}
