// The planner pattern with restore points, with the C# binding: K rollouts of H steps from one
// restore point, each applying it, writing controls and stepping; the best by a cost; then the
// best rollout replayed from the same restore point, reproducing its cost bit for bit. A Unity
// agent plans like this in FixedUpdate: Apply and Stepper.Step allocate nothing.
//   mcs -out:planner.exe bindings/csharp/MjBridge.cs examples/csharp/Planner.cs
//   LD_LIBRARY_PATH=/usr/local/lib mono planner.exe [model.xml]
using System;
using MjBridge;

static class Planner
{
    // A pendulum with one motor, inline so the example runs anywhere.
    const string Pendulum =
        "<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>" +
        "<joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/>" +
        "<geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.03' mass='1'/></body></worldbody>" +
        "<actuator><motor name='motor' joint='hinge'/></actuator></mujoco>";

    const int Rollouts = 16; // K
    const int Horizon = 50;  // H
    const double Target = 1.0; // the first joint's angle to reach (rad)

    // One rollout: back to the start, then H steps of the plan's controls; the cost of the
    // states it passes through. The stepper writes Ctrl, steps and reads qpos/qvel in one call.
    static double Rollout(Endpoint ep, RestorePoint start, Stepper stepper, double[] plan)
    {
        ep.Apply(start).EnsureOk();
        int nu = stepper.Ctrl.Length;
        double cost = 0.0;
        for (int t = 0; t < Horizon; t++)
        {
            Array.Copy(plan, t * nu, stepper.Ctrl, 0, nu);
            stepper.Step().EnsureOk();
            double err = stepper.Buffers[0][0] - Target;
            double v = stepper.Buffers[1][0];
            cost += err * err + 0.01 * v * v + 0.001 * stepper.Ctrl[0] * stepper.Ctrl[0];
        }
        return cost;
    }

    static int Main(string[] args)
    {
        Config config = args.Length > 0 ? Config.FromPath(args[0]) : Config.FromXml(Pendulum);
        config.Name = "planner-csharp";
        config.Seed = 1;
        config.Frame = new[] { Field.Qpos, Field.Qvel };
        try
        {
            using (var ep = Endpoint.Open(config))
            {
                ModelDims d = ep.Dims();
                if (d.Nu == 0) throw new Exception("the model has no actuator to plan for");
                var bufs = new[] { new double[d.Nq], new double[d.Nv] };
                ep.Step(20).EnsureOk();
                // Where planning starts, captured once (no JSON).
                using (RestorePoint start = ep.Capture())
                using (Stepper stepper = ep.Stepper(new[] { Field.Qpos, Field.Qvel }, bufs))
                {
                    // K random control sequences (a sampling planner's candidates), each rolled out.
                    var rng = new Random(7);
                    var plans = new double[Rollouts][];
                    var costs = new double[Rollouts];
                    int best = 0;
                    for (int k = 0; k < Rollouts; k++)
                    {
                        plans[k] = new double[Horizon * d.Nu];
                        for (int i = 0; i < plans[k].Length; i++) plans[k][i] = 4.0 * rng.NextDouble() - 2.0;
                        costs[k] = Rollout(ep, start, stepper, plans[k]);
                        if (costs[k] < costs[best]) best = k;
                    }
                    Console.WriteLine("planner-csharp: " + Rollouts + " rollouts of " + Horizon + " steps from tick " +
                                      start.Tick + "; best rollout " + best + ", cost " + costs[best].ToString("R"));

                    // The restore point restores exactly: the best rollout's controls again give
                    // its cost, bit for bit.
                    double again = Rollout(ep, start, stepper, plans[best]);
                    bool same = BitConverter.DoubleToInt64Bits(again) == BitConverter.DoubleToInt64Bits(costs[best]);
                    Console.WriteLine("planner-csharp: replayed rollout " + best + ": cost " + again.ToString("R") + ", " +
                                      (same ? "the same bit for bit" : "DIFFERENT"));
                    if (!same) return 1;

                    // Act: back to the start and take the best plan's first step, on the condition
                    // that nobody moved the endpoint since (Reason.Precondition otherwise).
                    ep.Apply(start).EnsureOk();
                    Array.Copy(plans[best], 0, stepper.Ctrl, 0, (int)d.Nu);
                    Result act = stepper.Step(Expect.AtTick(start.Tick)).EnsureOk();
                    Console.WriteLine("planner-csharp: acted from tick " + act.Report.TickBefore + " to " + act.Report.TickAfter);
                }
            }
            Console.WriteLine("planner-csharp: done");
            return 0;
        }
        catch (MjbException e)
        {
            Console.Error.WriteLine("planner-csharp: " + e.Message);
            return 1;
        }
    }
}
