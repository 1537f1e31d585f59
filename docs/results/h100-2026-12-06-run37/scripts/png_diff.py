# Compares 8-bit RGB/RGBA PNGs pairwise (no library: zlib and the five
# PNG row filters): the largest difference in any colour channel and how
# many pixels differ, with a histogram of the differences 1-5.
import zlib, struct, sys
def load(path):
    d=open(path,'rb').read(); i=8; idat=b''
    while i<len(d):
        n,=struct.unpack('>I',d[i:i+4]); t=d[i+4:i+8]; c=d[i+8:i+8+n]; i+=12+n
        if t==b'IHDR': w,h,bd,ct=struct.unpack('>IIBB',c[:10])
        elif t==b'IDAT': idat+=c
    bpp={2:3,6:4}[ct]; raw=zlib.decompress(idat); stride=w*bpp; out=[]; prev=bytearray(stride); p=0
    for y in range(h):
        f=raw[p]; line=bytearray(raw[p+1:p+1+stride]); p+=1+stride
        for x in range(stride):
            a=line[x-bpp] if x>=bpp else 0; b=prev[x]; c=prev[x-bpp] if x>=bpp else 0
            if f==1: line[x]=(line[x]+a)&255
            elif f==2: line[x]=(line[x]+b)&255
            elif f==3: line[x]=(line[x]+(a+b)//2)&255
            elif f==4:
                pa=abs(b-c); pb=abs(a-c); pc=abs(a+b-2*c)
                pr=a if pa<=pb and pa<=pc else (b if pb<=pc else c); line[x]=(line[x]+pr)&255
        out.append(bytes(line)); prev=line
    return w,h,bpp,out
imgs={n:load(n+'.png') for n in sys.argv[1:]}
names=sys.argv[1:]
for i in range(len(names)):
  for j in range(i+1,len(names)):
    w,h,bpp,A=imgs[names[i]]; _,_,_,B=imgs[names[j]]
    hist=[0]*256; nd=0
    for y in range(h):
        ra,rb=A[y],B[y]
        if ra==rb: hist[0]+=w; continue
        for x in range(w):
            m=max(abs(ra[x*bpp+k]-rb[x*bpp+k]) for k in range(3))
            hist[m]+=1
    mx=max(k for k in range(256) if hist[k])
    print(names[i],names[j],'max channel diff',mx,'pixels differing',w*h-hist[0],'of',w*h,'hist1-5',hist[1:6])
