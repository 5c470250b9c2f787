// Prints the C# binding's view of the ABI, one fact a line, for tests/bindings.rs to compare
// with the header (and with sizeof/offsetof printed by a C program):
//   enum <Type> <Member> <value>
//   struct <Type> <Marshal.SizeOf>
//   field <Type> <Field> <Marshal.OffsetOf> <marshalled size>
//   const <Name> <value>
//   function <entry point> <return kind> <parameter kinds...>
// Reflection only: the native library is not loaded.
using System;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using MjBridge;

static class Abi
{
    static int FieldSize(FieldInfo f)
    {
        var ma = (MarshalAsAttribute)f.GetCustomAttributes(typeof(MarshalAsAttribute), false).FirstOrDefault();
        Type t = f.FieldType;
        if (t.IsEnum) t = Enum.GetUnderlyingType(t);
        if (t == typeof(bool))
        {
            if (ma == null) return 4; // the default Win32 BOOL: wrong for a C bool
            if (ma.Value == UnmanagedType.U1 || ma.Value == UnmanagedType.I1) return 1;
            return 4;
        }
        if (t.IsArray && ma != null && ma.Value == UnmanagedType.ByValArray)
            return Marshal.SizeOf(t.GetElementType()) * ma.SizeConst;
        return Marshal.SizeOf(t);
    }

    static string Kind(Type t, ParameterInfo p)
    {
        string prefix = "";
        if (t.IsByRef)
        {
            prefix = p.IsOut ? "out:" : "ref:";
            t = t.GetElementType();
        }
        string k;
        if (t == typeof(void)) k = "void";
        else if (t == typeof(IntPtr)) k = "ptr";
        else if (t == typeof(UIntPtr)) k = "usize";
        else if (typeof(SafeHandle).IsAssignableFrom(t)) k = "handle";
        else if (t == typeof(byte[])) k = "bytes";
        else if (t == typeof(double[])) k = "f64[]";
        else if (t == typeof(string)) k = "string";
        else if (t == typeof(bool))
        {
            // A C bool is one byte: only [MarshalAs(U1)] (or I1) marshals it right.
            var ma = p == null ? null : (MarshalAsAttribute)p.GetCustomAttributes(typeof(MarshalAsAttribute), false).FirstOrDefault();
            k = ma != null && (ma.Value == UnmanagedType.U1 || ma.Value == UnmanagedType.I1) ? "bool" : "bool(4 bytes)";
        }
        else if (t.IsEnum || t.IsPrimitive)
        {
            Type u = t.IsEnum ? Enum.GetUnderlyingType(t) : t;
            if (u == typeof(int)) k = "i32";
            else if (u == typeof(uint)) k = "u32";
            else if (u == typeof(long)) k = "i64";
            else if (u == typeof(ulong)) k = "u64";
            else if (u == typeof(double)) k = "f64";
            else if (u == typeof(float)) k = "f32";
            else if (u == typeof(byte)) k = "u8";
            else k = "?" + u.Name;
        }
        else if (t.IsValueType) k = "struct:" + t.Name;
        else if (t.IsArray && t.GetElementType().IsValueType && !t.GetElementType().IsPrimitive)
            k = "struct[]:" + t.GetElementType().Name;
        else if (t.IsSubclassOf(typeof(Delegate)))
        {
            // A callback must be a Cdecl function pointer (and IL2CPP needs the attribute too).
            var ufp = (UnmanagedFunctionPointerAttribute)t.GetCustomAttributes(typeof(UnmanagedFunctionPointerAttribute), false).FirstOrDefault();
            k = ufp != null && ufp.CallingConvention == CallingConvention.Cdecl ? "fn" : "fn(not cdecl)";
        }
        else k = "?" + t.Name;
        if (prefix == "ref:" && p.IsIn) prefix = "in:";
        return prefix + k;
    }

    static void Main()
    {
        Assembly a = typeof(Endpoint).Assembly;
        foreach (Type t in a.GetTypes().Where(t => t.IsPublic && t.Namespace == "MjBridge").OrderBy(t => t.Name))
        {
            if (t.IsEnum)
            {
                foreach (string name in Enum.GetNames(t))
                    Console.WriteLine("enum {0} {1} {2}", t.Name, name, Convert.ToInt64(Enum.Parse(t, name)));
            }
            else if (t.IsValueType && t.IsExplicitLayout)
            {
                Console.WriteLine("struct {0} {1}", t.Name, Marshal.SizeOf(t));
                foreach (FieldInfo f in t.GetFields(BindingFlags.Public | BindingFlags.Instance))
                    Console.WriteLine("field {0} {1} {2} {3}", t.Name, f.Name, Marshal.OffsetOf(t, f.Name), FieldSize(f));
            }
        }
        foreach (FieldInfo f in typeof(Constants).GetFields(BindingFlags.Public | BindingFlags.Static))
            Console.WriteLine("const {0} {1}", f.Name, f.GetValue(null));
        foreach (MethodInfo m in typeof(Native).GetMethods(BindingFlags.Public | BindingFlags.Static))
        {
            var dll = (DllImportAttribute)m.GetCustomAttributes(typeof(DllImportAttribute), false).FirstOrDefault();
            if (dll == null) continue;
            string entry = string.IsNullOrEmpty(dll.EntryPoint) ? m.Name : dll.EntryPoint;
            var kinds = m.GetParameters().Select(p => Kind(p.ParameterType, p));
            Console.WriteLine(("function " + entry + " " + Kind(m.ReturnType, m.ReturnParameter) + " " + string.Join(" ", kinds)).TrimEnd());
        }
    }
}
