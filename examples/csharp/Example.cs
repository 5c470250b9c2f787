// open -> step -> checkpoint -> restore -> stop from another thread, with the C# binding.
// The same calls work in a Unity MonoBehaviour (see the README's Unity section).
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
        "<actuator><motor joint='hinge'/></actuator></mujoco>";

    static int Main(string[] args)
    {
        string model = args.Length > 0 ? "{\"xml_path\":\"" + args[0] + "\"}" : "{\"xml\":\"" + Pendulum + "\"}";
        try
        {
            using (var ep = Endpoint.Open("{\"model\":" + model + ",\"name\":\"example-csharp\",\"seed\":1}"))
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
